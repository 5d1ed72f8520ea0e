import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './worker.config.js';

describe('loadWorkerConfig', () => {
  it('takes the CUDA device id, the one GPU setting onnxruntime-node passes to its providers', () => {
    expect(loadWorkerConfig({ WORKER_CUDA_DEVICE_ID: '1' }).WORKER_CUDA_DEVICE_ID).toBe(1);
  });

  it.each(['WORKER_TENSORRT_CACHE_DIR', 'WORKER_TENSORRT_FP16', 'WORKER_CUDA_MEMORY_LIMIT_BYTES'])(
    'refuses %s, which onnxruntime-node cannot pass, instead of ignoring it',
    (key) => {
      expect(() => loadWorkerConfig({ [key]: '1' })).toThrow(
        new RegExp(
          `invalid worker configuration:\\n  ${key} is not supported: onnxruntime-node's binding passes only the device id`,
        ),
      );
    },
  );

  it('reads the load retry policy', () => {
    const config = loadWorkerConfig({ WORKER_LOAD_RETRY_BASE_MS: '250', WORKER_LOAD_RETRY_ATTEMPTS: '3' });
    expect([
      config.WORKER_LOAD_RETRY_BASE_MS,
      config.WORKER_LOAD_RETRY_MAX_MS,
      config.WORKER_LOAD_RETRY_ATTEMPTS,
    ]).toEqual([250, 30_000, 3]);
  });

  it('refuses a first load retry wait longer than the longest one (it would never apply)', () => {
    expect(() =>
      loadWorkerConfig({ WORKER_LOAD_RETRY_BASE_MS: '60000', WORKER_LOAD_RETRY_MAX_MS: '30000' }),
    ).toThrow(
      /WORKER_LOAD_RETRY_BASE_MS: the first wait \(60000 ms\) exceeds WORKER_LOAD_RETRY_MAX_MS \(30000 ms\)/,
    );
    const equal = loadWorkerConfig({ WORKER_LOAD_RETRY_BASE_MS: '30000', WORKER_LOAD_RETRY_MAX_MS: '30000' });
    expect(equal.WORKER_LOAD_RETRY_BASE_MS).toBe(30_000);
  });

  it('refuses durations a Node timer cannot keep, which would act after 1 ms', () => {
    // A drain timeout of 3e9 ms gave up at once, answering every queued request UNAVAILABLE.
    expect(() => loadWorkerConfig({ WORKER_DRAIN_TIMEOUT_MS: '3000000000' })).toThrow(
      /WORKER_DRAIN_TIMEOUT_MS/,
    );
    expect(() => loadWorkerConfig({ WORKER_LOAD_RETRY_MAX_MS: '3000000000' })).toThrow(
      /WORKER_LOAD_RETRY_MAX_MS/,
    );
    expect(loadWorkerConfig({ WORKER_DRAIN_TIMEOUT_MS: String(2_147_483_647) }).WORKER_DRAIN_TIMEOUT_MS).toBe(
      2_147_483_647,
    );
  });

  it('refuses a heartbeat TTL the registry would refuse in every report (over 10 minutes)', () => {
    const registry = { REGISTRY_URL: 'http://registry:8081' };
    expect(loadWorkerConfig({ ...registry, WORKER_HEARTBEAT_TTL_MS: '600000' }).WORKER_HEARTBEAT_TTL_MS).toBe(
      600_000,
    );
    expect(() => loadWorkerConfig({ ...registry, WORKER_HEARTBEAT_TTL_MS: '700000' })).toThrow(
      /WORKER_HEARTBEAT_TTL_MS/,
    );
  });

  it('refuses gRPC port 0: heartbeats would advertise a port nobody can dial', () => {
    expect(() => loadWorkerConfig({ WORKER_GRPC_PORT: '0' })).toThrow(/WORKER_GRPC_PORT/);
  });

  it('takes models to fail at run time only as a test hook, and refuses them without WORKER_TEST_HOOKS', () => {
    const config = loadWorkerConfig({
      WORKER_TEST_HOOKS: 'true',
      WORKER_TEST_FAILING_MODELS: 'tiny:2,tiny:3',
    });
    expect(config.WORKER_TEST_FAILING_MODELS).toEqual(['tiny:2', 'tiny:3']);
    expect(() => loadWorkerConfig({ WORKER_TEST_FAILING_MODELS: 'tiny:2' })).toThrow(
      /WORKER_TEST_FAILING_MODELS: a test hook, honoured only with WORKER_TEST_HOOKS=true/,
    );
  });

  it('refuses settings that would do nothing in this configuration, each saying why', () => {
    const registry = { REGISTRY_URL: 'http://registry:8081' };
    expect(() => loadWorkerConfig({ ...registry, WORKER_CONFIG_FILE: '/etc/snapshot.json' })).toThrow(
      /WORKER_CONFIG_FILE: is not read while REGISTRY_URL is set \(the registry's config wins\): set one of them/,
    );
    expect(() =>
      loadWorkerConfig({
        WORKER_RECONCILE_INTERVAL_MS: '500',
        WORKER_HEARTBEAT_TTL_MS: '3000',
        WORKER_ADVERTISE_ADDRESS: '10.0.0.1',
      }),
    ).toThrow(
      'invalid worker configuration:\n' +
        '  WORKER_RECONCILE_INTERVAL_MS: paces polling the registry: set REGISTRY_URL, or leave it out\n' +
        '  WORKER_HEARTBEAT_TTL_MS: heartbeats go to Redis or the registry: set REDIS_URL or REGISTRY_URL, or leave it out\n' +
        '  WORKER_ADVERTISE_ADDRESS: the address is advertised in heartbeats: set REDIS_URL or REGISTRY_URL, or leave it out',
    );
    const live = loadWorkerConfig({
      ...registry,
      WORKER_RECONCILE_INTERVAL_MS: '500',
      WORKER_HEARTBEAT_TTL_MS: '3000',
      WORKER_ADVERTISE_ADDRESS: '10.0.0.1',
    });
    expect([live.WORKER_RECONCILE_INTERVAL_MS, live.WORKER_HEARTBEAT_TTL_MS]).toEqual([500, 3000]);
    expect(() => loadWorkerConfig({ REGISTRY_TOKEN: 'mgt_node' })).toThrow(
      /REGISTRY_TOKEN: is sent only to REGISTRY_URL .*: set REGISTRY_URL, or leave it out/,
    );
    expect(loadWorkerConfig({ ...registry, REGISTRY_TOKEN: 'mgt_node' }).REGISTRY_TOKEN).toBe('mgt_node');
    expect(() => loadWorkerConfig({ ...registry, REDIS_KEY_PREFIX: 'mg' })).toThrow(
      'REDIS_KEY_PREFIX: prefixes Redis keys and channels only: set REDIS_URL, or leave it out',
    );
    expect(
      loadWorkerConfig({ REDIS_URL: 'redis://redis:6379', REDIS_KEY_PREFIX: 'mg' }).REDIS_KEY_PREFIX,
    ).toBe('mg');
    expect(loadWorkerConfig({ WORKER_CONFIG_FILE: '/etc/snapshot.json' }).WORKER_CONFIG_FILE).toBe(
      '/etc/snapshot.json',
    );
  });

  it('takes WORKER_SOLO_SPINNING (default on), and refuses it where no solo session opens', () => {
    expect(loadWorkerConfig({}).WORKER_SOLO_SPINNING).toBe(true);
    expect(loadWorkerConfig({ WORKER_SOLO_SPINNING: 'false' }).WORKER_SOLO_SPINNING).toBe(false);
    expect(() => loadWorkerConfig({ WORKER_SOLO_SPINNING: 'sometimes' })).toThrow(/WORKER_SOLO_SPINNING/);
    expect(() => loadWorkerConfig({ WORKER_SOLO_SESSION: 'false', WORKER_SOLO_SPINNING: 'true' })).toThrow(
      'invalid worker configuration:\n  WORKER_SOLO_SPINNING: sets how the solo session runs, and WORKER_SOLO_SESSION=false opens none: leave one of them out',
    );
  });

  it('refuses allowlisted artifact hosts while http(s) artifact URIs are off', () => {
    expect(() =>
      loadWorkerConfig({ WORKER_ALLOW_HTTP_ARTIFACTS: 'no', WORKER_ARTIFACT_ALLOWED_HOSTS: 'registry' }),
    ).toThrow(
      /WORKER_ARTIFACT_ALLOWED_HOSTS: exempts hosts of http\(s\) artifact URIs .*WORKER_ALLOW_HTTP_ARTIFACTS turns those URIs off/,
    );
    expect(
      loadWorkerConfig({ WORKER_ARTIFACT_ALLOWED_HOSTS: 'registry' }).WORKER_ARTIFACT_ALLOWED_HOSTS,
    ).toEqual(['registry']);
  });
});
