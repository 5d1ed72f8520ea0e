import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './gateway.config.js';

describe('GATEWAY_WORKER_ADDRESSES', () => {
  it('is empty by default', () => {
    expect(loadGatewayConfig({}).GATEWAY_WORKER_ADDRESSES).toEqual([]);
  });

  it('reads group=address,address pairs separated by semicolons', () => {
    const config = loadGatewayConfig({
      GATEWAY_WORKER_ADDRESSES: 'default=127.0.0.1:8001, 127.0.0.1:8011 ; gpu=dns:///workers.ns.svc:8001;',
    });
    expect(config.GATEWAY_WORKER_ADDRESSES).toEqual([
      { name: 'default', addresses: ['127.0.0.1:8001', '127.0.0.1:8011'] },
      { name: 'gpu', addresses: ['dns:///workers.ns.svc:8001'] },
    ]);
  });

  it('names the variable when a group has no name, no addresses or a bad name', () => {
    for (const value of ['127.0.0.1:8001', 'default=', 'Bad Name=127.0.0.1:8001']) {
      expect(() => loadGatewayConfig({ GATEWAY_WORKER_ADDRESSES: value })).toThrow(
        /GATEWAY_WORKER_ADDRESSES: .*must be group=host:port/,
      );
    }
  });

  it('refuses a group given twice, whose later entry replaced the earlier addresses', () => {
    expect(() =>
      loadGatewayConfig({ GATEWAY_WORKER_ADDRESSES: 'default=10.0.0.1:8001;default=10.0.0.2:8001' }),
    ).toThrow(/group 'default' is given twice: list all its addresses in one entry/);
  });
});

describe('numbers from the environment', () => {
  it('refuses an empty or non-decimal value rather than read it as 0 (GATEWAY_PORT= listened on a random port)', () => {
    for (const [key, value] of [
      ['GATEWAY_PORT', ''],
      ['GATEWAY_DRAIN_TIMEOUT_MS', ' '],
      ['GATEWAY_BODY_LIMIT_BYTES', '0x1000'],
      ['GATEWAY_SHUTDOWN_DELAY_MS', '1e3'],
    ] as const) {
      expect(() => loadGatewayConfig({ [key]: value })).toThrow(
        new RegExp(`${key}: must be a whole number in decimal digits`),
      );
    }
    expect(loadGatewayConfig({ GATEWAY_PORT: ' 9090 ' }).GATEWAY_PORT).toBe(9090);
    expect(() => loadGatewayConfig({ GATEWAY_PORT: '70000' })).toThrow(/GATEWAY_PORT/);
  });
});

describe('graceful termination settings', () => {
  it('default to no delay (no load balancer to wait for) and a 30 s drain', () => {
    const config = loadGatewayConfig({});
    expect(config.GATEWAY_SHUTDOWN_DELAY_MS).toBe(0);
    expect(config.GATEWAY_DRAIN_TIMEOUT_MS).toBe(30_000);
  });

  it('reads both in ms and names a negative or fractional value', () => {
    const config = loadGatewayConfig({
      GATEWAY_SHUTDOWN_DELAY_MS: '5000',
      GATEWAY_DRAIN_TIMEOUT_MS: '10000',
    });
    expect([config.GATEWAY_SHUTDOWN_DELAY_MS, config.GATEWAY_DRAIN_TIMEOUT_MS]).toEqual([5000, 10_000]);
    expect(() => loadGatewayConfig({ GATEWAY_SHUTDOWN_DELAY_MS: '-1' })).toThrow(/GATEWAY_SHUTDOWN_DELAY_MS/);
    expect(() => loadGatewayConfig({ GATEWAY_DRAIN_TIMEOUT_MS: '1.5' })).toThrow(/GATEWAY_DRAIN_TIMEOUT_MS/);
  });
});

describe('durations', () => {
  it('refuses intervals a Node timer cannot keep (they would fire every millisecond)', () => {
    const registry = { REGISTRY_URL: 'http://registry:8081' };
    expect(() => loadGatewayConfig({ ...registry, GATEWAY_RECONCILE_INTERVAL_MS: '3000000000' })).toThrow(
      /GATEWAY_RECONCILE_INTERVAL_MS/,
    );
    expect(() => loadGatewayConfig({ GATEWAY_DISCOVERY_INTERVAL_MS: '3000000000' })).toThrow(
      /GATEWAY_DISCOVERY_INTERVAL_MS/,
    );
  });

  it('refuses a heartbeat TTL the registry would refuse in every report (over 10 minutes)', () => {
    const registry = { REGISTRY_URL: 'http://registry:8081' };
    expect(
      loadGatewayConfig({ ...registry, GATEWAY_HEARTBEAT_TTL_MS: '600000' }).GATEWAY_HEARTBEAT_TTL_MS,
    ).toBe(600_000);
    expect(() => loadGatewayConfig({ ...registry, GATEWAY_HEARTBEAT_TTL_MS: '700000' })).toThrow(
      /GATEWAY_HEARTBEAT_TTL_MS/,
    );
  });
});

describe('retired keys', () => {
  it('refuses GATEWAY_DEFAULT_TIMEOUT_MS, saying where request deadlines come from now', () => {
    expect(() => loadGatewayConfig({ GATEWAY_DEFAULT_TIMEOUT_MS: '5000' })).toThrow(
      /GATEWAY_DEFAULT_TIMEOUT_MS is no longer read: .*endpoint's timeoutMs, else its model's batching.defaultTimeoutMs/,
    );
  });
});

describe('loadGatewayConfig: settings that would do nothing', () => {
  it('refuses a reconcile interval with neither a registry to poll nor a primary to reconnect to', () => {
    expect(() => loadGatewayConfig({ GATEWAY_WORKERS: '1', GATEWAY_RECONCILE_INTERVAL_MS: '500' })).toThrow(
      /GATEWAY_RECONCILE_INTERVAL_MS: paces polling REGISTRY_URL and event loops reconnecting to their primary/,
    );
    const loops = loadGatewayConfig({ GATEWAY_WORKERS: '2', GATEWAY_RECONCILE_INTERVAL_MS: '500' });
    expect(loops.GATEWAY_RECONCILE_INTERVAL_MS).toBe(500);
    const registry = loadGatewayConfig({
      GATEWAY_WORKERS: '1',
      REGISTRY_URL: 'http://registry:8081',
      GATEWAY_RECONCILE_INTERVAL_MS: '500',
    });
    expect(registry.GATEWAY_RECONCILE_INTERVAL_MS).toBe(500);
  });

  it('refuses a registry token without a registry to send it to', () => {
    expect(() => loadGatewayConfig({ REGISTRY_TOKEN: 'mgt_node' })).toThrow(
      /REGISTRY_TOKEN: is sent only to REGISTRY_URL .*: set REGISTRY_URL, or leave it out/,
    );
    const live = loadGatewayConfig({ REGISTRY_URL: 'http://registry:8081', REGISTRY_TOKEN: 'mgt_node' });
    expect(live.REGISTRY_TOKEN).toBe('mgt_node');
  });

  it('refuses allowlisted artifact hosts while http(s) artifact URIs are off', () => {
    for (const off of ['false', '0', 'no']) {
      expect(() =>
        loadGatewayConfig({ GATEWAY_ALLOW_HTTP_ARTIFACTS: off, GATEWAY_ARTIFACT_ALLOWED_HOSTS: 'registry' }),
      ).toThrow(
        /GATEWAY_ARTIFACT_ALLOWED_HOSTS: exempts hosts of http\(s\) artifact URIs .*GATEWAY_ALLOW_HTTP_ARTIFACTS turns those URIs off/,
      );
    }
    const on = loadGatewayConfig({
      GATEWAY_ALLOW_HTTP_ARTIFACTS: 'true',
      GATEWAY_ARTIFACT_ALLOWED_HOSTS: 'registry',
    });
    expect(on.GATEWAY_ARTIFACT_ALLOWED_HOSTS).toEqual(['registry']);
    expect(loadGatewayConfig({ GATEWAY_ALLOW_HTTP_ARTIFACTS: 'false' }).GATEWAY_ALLOW_HTTP_ARTIFACTS).toBe(
      false,
    );
  });

  it('refuses a config file beside REGISTRY_URL, and Redis-only settings without Redis, each saying why', () => {
    expect(() =>
      loadGatewayConfig({ REGISTRY_URL: 'http://registry:8081', GATEWAY_CONFIG_FILE: '/etc/snapshot.json' }),
    ).toThrow(/GATEWAY_CONFIG_FILE: is not read while REGISTRY_URL is set/);
    expect(() =>
      loadGatewayConfig({
        GATEWAY_HEARTBEAT_TTL_MS: '3000',
        GATEWAY_DISCOVERY_INTERVAL_MS: '250',
        GATEWAY_ASYNC_RESULT_TTL_SECONDS: '60',
        GATEWAY_ASYNC_CONCURRENCY: '2',
        REDIS_KEY_PREFIX: 'mg',
      }),
    ).toThrow(
      'invalid gateway configuration:\n' +
        '  REDIS_KEY_PREFIX: prefixes Redis keys and channels only: set REDIS_URL, or leave it out\n' +
        '  GATEWAY_HEARTBEAT_TTL_MS: heartbeats go to Redis or the registry: set REDIS_URL or REGISTRY_URL, or leave it out\n' +
        '  GATEWAY_DISCOVERY_INTERVAL_MS: workers are discovered from heartbeats in Redis: set REDIS_URL, or leave it out\n' +
        '  GATEWAY_ASYNC_RESULT_TTL_SECONDS: async inference keeps its jobs in Redis: set REDIS_URL, or leave it out\n' +
        '  GATEWAY_ASYNC_CONCURRENCY: async inference keeps its jobs in Redis: set REDIS_URL, or leave it out',
    );
    const withRedis = loadGatewayConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      GATEWAY_DISCOVERY_INTERVAL_MS: '250',
      GATEWAY_ASYNC_CONCURRENCY: '2',
      REDIS_KEY_PREFIX: 'mg',
    });
    expect([
      withRedis.GATEWAY_DISCOVERY_INTERVAL_MS,
      withRedis.GATEWAY_ASYNC_CONCURRENCY,
      withRedis.REDIS_KEY_PREFIX,
    ]).toEqual([250, 2, 'mg']);
  });

  it('bounds receiving a request by two limits, the whole one no shorter than the headers one', () => {
    const defaults = loadGatewayConfig({});
    expect([defaults.GATEWAY_HEADERS_TIMEOUT_MS, defaults.GATEWAY_RECEIVE_TIMEOUT_MS]).toEqual([
      10_000, 60_000,
    ]);
    expect(() =>
      loadGatewayConfig({ GATEWAY_HEADERS_TIMEOUT_MS: '5000', GATEWAY_RECEIVE_TIMEOUT_MS: '2000' }),
    ).toThrow(
      /GATEWAY_RECEIVE_TIMEOUT_MS: bounds the whole request, headers included, so it must be at least GATEWAY_HEADERS_TIMEOUT_MS \(5000\)/,
    );
    expect(() => loadGatewayConfig({ GATEWAY_HEADERS_TIMEOUT_MS: '50' })).toThrow(
      /GATEWAY_HEADERS_TIMEOUT_MS/,
    );
  });

  it('closes idle keep-alive connections after 72 s unless told otherwise, never after less than 100 ms', () => {
    expect(loadGatewayConfig({}).GATEWAY_KEEP_ALIVE_TIMEOUT_MS).toBe(72_000);
    expect(loadGatewayConfig({ GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '5000' }).GATEWAY_KEEP_ALIVE_TIMEOUT_MS).toBe(
      5000,
    );
    expect(() => loadGatewayConfig({ GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '50' })).toThrow(
      /GATEWAY_KEEP_ALIVE_TIMEOUT_MS/,
    );
  });
});
