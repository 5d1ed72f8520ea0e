import { describe, expect, it } from 'vitest';
import { type K8sObject, onDefaults, renderChart, type ValuesInput } from './support/helm.js';
import { componentOf, podSpecOf, workloads } from './support/pod-spec.js';
import { APP_ENV_KEYS, type AppName, readRepoFile } from './support/repo.js';

/** The app each rendered component runs (the migration Job runs the registry's migrate command). */
const APP_OF_COMPONENT: Readonly<Record<string, AppName>> = {
  gateway: 'gateway',
  worker: 'worker',
  registry: 'registry',
  migrations: 'registry',
};

type EnvSchema = { properties: Record<string, unknown> };
const valuesSchema = JSON.parse(readRepoFile('helm', 'modelgate', 'values.schema.json')) as {
  properties: Record<'gateway' | 'worker' | 'registry', { properties: { env: EnvSchema } }>;
};

/** A valid value for every env var the values schema accepts, so one render sets them all. */
const EVERY_ENV_VALUE: Readonly<Record<AppName, Record<string, unknown>>> = {
  gateway: {
    GATEWAY_WORKERS: 'auto',
    GATEWAY_ARTIFACT_ROOTS: '/models',
    GATEWAY_ALLOW_HTTP_ARTIFACTS: true,
    GATEWAY_ARTIFACT_ALLOWED_HOSTS: 'models.internal',
    S3_ENDPOINT_URL: 'http://minio:9000',
    HTTPS_PROXY: 'http://proxy:3128',
    HTTP_PROXY: 'http://proxy:3128',
    NO_PROXY: 'modelgate-registry,.svc.cluster.local',
    GATEWAY_BODY_LIMIT_BYTES: 2048,
    GATEWAY_MERGE_CALLS: false,
    GATEWAY_WORKER_STALL_MS: 5000,
    GATEWAY_HEADERS_TIMEOUT_MS: 5000,
    GATEWAY_RECEIVE_TIMEOUT_MS: 30000,
    GATEWAY_KEEP_ALIVE_TIMEOUT_MS: 65000,
    GATEWAY_ASYNC_RESULT_TTL_SECONDS: 600,
    GATEWAY_ASYNC_CONCURRENCY: 4,
    GATEWAY_SHUTDOWN_DELAY_MS: 0,
    GATEWAY_DRAIN_TIMEOUT_MS: 1000,
    GATEWAY_DOCS: false,
    GATEWAY_TEI_DEFAULT_ENDPOINT: 'embedder,rerank=ranker',
    GATEWAY_LOG_LEVEL: 'debug',
  },
  worker: {
    WORKER_ARTIFACT_ROOTS: '/models',
    WORKER_ALLOW_HTTP_ARTIFACTS: true,
    WORKER_ARTIFACT_ALLOWED_HOSTS: 'models.internal',
    S3_ENDPOINT_URL: 'http://minio:9000',
    HTTPS_PROXY: 'http://proxy:3128',
    HTTP_PROXY: 'http://proxy:3128',
    NO_PROXY: 'modelgate-registry,.svc.cluster.local',
    WORKER_DRAIN_TIMEOUT_MS: 1000,
    WORKER_UNLOAD_GRACE_MS: 5000,
    WORKER_LOAD_RETRY_BASE_MS: 500,
    WORKER_LOAD_RETRY_MAX_MS: 10000,
    WORKER_LOAD_RETRY_ATTEMPTS: 3,
    WORKER_CUDA_DEVICE_ID: 0,
    WORKER_SOLO_SESSION: true,
    WORKER_SOLO_SPINNING: false,
    WORKER_INLINE: true,
    WORKER_INLINE_MAX_MS: 5,
    WORKER_INLINE_IDLE_SPIN: false,
    WORKER_PREFILL_CHUNK_TOKENS: 128,
    WORKER_LOG_LEVEL: 'debug',
  },
  registry: {
    DATABASE_SCHEMA: 'mg',
    DATABASE_POOL_SIZE: 5,
    REDIS_KEY_PREFIX: 'mg',
    REGISTRY_ARTIFACT_ROOTS: '/models',
    REGISTRY_ALLOW_HTTP_ARTIFACTS: false,
    REGISTRY_ARTIFACT_ALLOWED_HOSTS: 'models.internal',
    S3_ENDPOINT_URL: 'http://minio:9000',
    HTTPS_PROXY: 'http://proxy:3128',
    HTTP_PROXY: 'http://proxy:3128',
    NO_PROXY: 'modelgate-registry,.svc.cluster.local',
    HF_ENDPOINT: 'https://hub.internal/hf',
    REGISTRY_ARTIFACT_MAX_BYTES: 1024,
    REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS: 1000,
    REGISTRY_PUBLIC_URL: 'https://registry.example.com',
    REGISTRY_RELAY_INTERVAL_MS: 500,
    REGISTRY_PREPARATION_ATTEMPTS: 2,
    REGISTRY_PREPARATION_BACKOFF_MS: 10,
    REGISTRY_PREPARATION_LOCK_MS: 1000,
    REGISTRY_PREPARATION_STALLED_INTERVAL_MS: 1000,
    REGISTRY_ROLLOUT_TICK_MS: 500,
    REGISTRY_LOG_LEVEL: 'debug',
  },
};

/**
 * The env var names each container of a workload gets: its `env` entries plus the keys of every
 * ConfigMap or Secret it loads with `envFrom` (looked up among the rendered objects).
 */
function envNamesOf(
  objects: readonly K8sObject[],
  workload: K8sObject,
): { container: string; names: string[] }[] {
  const dataKeys = (kind: string, name: string): string[] => {
    const source = objects.find((object) => object.kind === kind && object.metadata.name === name);
    if (source === undefined)
      throw new Error(`${workload.metadata.name} loads ${kind} ${name}, which the chart does not render`);
    return Object.keys({
      ...(source.data as object | undefined),
      ...(source.stringData as object | undefined),
    });
  };
  return podSpecOf(workload).containers.map((container) => ({
    container: container.name,
    names: [
      ...(container.env ?? []).map((env) => env.name),
      ...(container.envFrom ?? []).flatMap((from) => [
        ...(from.configMapRef ? dataKeys('ConfigMap', from.configMapRef.name) : []),
        ...(from.secretRef ? dataKeys('Secret', from.secretRef.name) : []),
      ]),
    ],
  }));
}

const RENDERS: readonly [string, ValuesInput][] = [
  ['default values', onDefaults()],
  ['production-like values', { files: ['ci/production-values.yaml'] }],
  ['static-snapshot values', { files: ['ci/production-values.yaml', 'ci/static-values.yaml'] }],
  [
    'a worker in the gateway’s process',
    onDefaults({ values: { gateway: { localWorker: { enabled: true }, env: { GATEWAY_WORKERS: 1 } } } }),
  ],
  [
    'every env var the values accept',
    onDefaults({
      values: {
        gateway: { env: EVERY_ENV_VALUE.gateway },
        worker: { env: EVERY_ENV_VALUE.worker },
        registry: { env: EVERY_ENV_VALUE.registry },
        credentials: {
          create: {
            enabled: true,
            databaseUrl: 'postgres://u:p@db/mg',
            redisUrl: 'redis://r:6379',
            bootstrapToken: 'x'.repeat(32),
            hfToken: 'hf_example',
          },
        },
      },
    }),
  ],
];

describe('env var names the chart sets', () => {
  it.each(RENDERS)('are all read by the app’s config schema, with %s', (_name, input) => {
    const objects = renderChart(input);
    const unknown: string[] = [];
    for (const workload of workloads(objects)) {
      const app = APP_OF_COMPONENT[componentOf(workload)];
      if (app === undefined) throw new Error(`no app known for component ${componentOf(workload)}`);
      for (const { container, names } of envNamesOf(objects, workload)) {
        expect(names.length, `${workload.metadata.name}/${container} gets no env at all`).toBeGreaterThan(0);
        // A co-located gateway also runs the worker app, which reads the WORKER_* settings.
        const apps: AppName[] = names.includes('GATEWAY_LOCAL_WORKER') ? [app, 'worker'] : [app];
        unknown.push(
          ...names
            .filter((name) => !apps.some((reader) => APP_ENV_KEYS[reader].has(name)))
            .map((name) => `${workload.metadata.name}/${container}: ${name}`),
        );
      }
    }
    expect(unknown).toEqual([]);
  });

  it.each(['gateway', 'worker', 'registry'] as const)(
    'accepts under %s.env only names that app reads',
    (app) => {
      const accepted = Object.keys(valuesSchema.properties[app].properties.env.properties);
      expect(accepted.filter((name) => !APP_ENV_KEYS[app].has(name))).toEqual([]);
      expect(Object.keys(EVERY_ENV_VALUE[app]).sort()).toEqual([...accepted].sort());
    },
  );

  it('prints integers in full, not in Helm’s float notation', () => {
    const objects = renderChart({ files: ['ci/production-values.yaml'] });
    const data = (name: string): Record<string, string> =>
      objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name)?.data as Record<
        string,
        string
      >;
    expect(data('mg-modelgate-worker-env').WORKER_LOAD_RETRY_MAX_MS).toBe('60000');
    expect(data('mg-modelgate-registry-env').REGISTRY_ARTIFACT_MAX_BYTES).toBe('8589934592');
    expect(data('mg-modelgate-gateway-env').GATEWAY_DOCS).toBe('false');
  });
});
