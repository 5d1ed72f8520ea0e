// The chart's values, credentials, config sync and snapshot (helm-workloads.e2e-spec.ts: the workloads).
import { parseConfigSnapshot } from '@modelgate/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHART_DIR,
  failureOf,
  findObject,
  type K8sObject,
  onDefaults,
  RELEASE,
  renderChart,
  runHelm,
  templateArgs,
  type ValuesInput,
  valuesArgs,
} from './support/helm.js';
import { validateKubernetesObject } from './support/kubernetes-schemas.js';
import { podSpecOf, workloads } from './support/pod-spec.js';

const DEFAULTS: ValuesInput = onDefaults();
const PRODUCTION: ValuesInput = { files: ['ci/production-values.yaml'] };
/** Production-like values switched to a static snapshot (configSync.mode static). */
const PRODUCTION_STATIC: ValuesInput = { files: ['ci/production-values.yaml', 'ci/static-values.yaml'] };
const STATIC = { configSync: { mode: 'static' } } as const;
const REGISTRY_URL = `http://mg-modelgate-registry.${RELEASE.namespace}.svc.cluster.local:8081`;
const WORKER_HOST = `mg-modelgate-worker.${RELEASE.namespace}.svc.cluster.local`;

let defaults: K8sObject[];
let production: K8sObject[];
let productionStatic: K8sObject[];

beforeAll(() => {
  defaults = renderChart(DEFAULTS);
  production = renderChart(PRODUCTION);
  productionStatic = renderChart(PRODUCTION_STATIC);
});

describe('helm/modelgate', () => {
  it.each([
    ['default', DEFAULTS],
    ['production-like', PRODUCTION],
    ['every extension', { files: ['ci/extensions-values.yaml'] }],
    ['production-like static-snapshot', PRODUCTION_STATIC],
  ] as const)('passes `helm lint --strict` with %s values', (_name, input) => {
    const result = runHelm([
      'lint',
      '--strict',
      CHART_DIR,
      '--namespace',
      RELEASE.namespace,
      ...valuesArgs(input),
    ]);
    expect(result.stderr + result.stdout).toContain('0 chart(s) failed');
    expect(result.status).toBe(0);
  });

  it('renders hooks and NOTES in a client-side `helm install --dry-run`', () => {
    const result = runHelm([
      'install',
      RELEASE.name,
      CHART_DIR,
      '--namespace',
      RELEASE.namespace,
      '--dry-run=client',
      ...valuesArgs(DEFAULTS),
    ]);
    expect(result.stderr).toBe('');
    expect(result.stdout).toContain('HOOKS:');
    expect(result.stdout).toContain('kind: Job');
    expect(result.stdout).toMatch(/NOTES:[\s\S]*create secret generic modelgate-credentials/);
  });

  it('renders manifests that validate against the Kubernetes schemas, with default and production-like values', () => {
    for (const objects of [defaults, production, productionStatic]) {
      expect(objects.length).toBeGreaterThan(10);
      for (const object of objects) validateKubernetesObject(object);
    }
    const kinds = new Set(production.map((object) => object.kind));
    for (const kind of [
      'Deployment',
      'Service',
      'Job',
      'HorizontalPodAutoscaler',
      'PodDisruptionBudget',
      'Ingress',
    ]) {
      expect(kinds).toContain(kind);
    }
    expect(kinds).toContain('NetworkPolicy');
    expect(kinds).toContain('ServiceMonitor');
  });

  it('rejects a value of the wrong type through values.schema.json, in template and in lint', () => {
    const wrong: ValuesInput = { values: { worker: { replicaCount: 'two' } } };
    expect(failureOf(templateArgs(wrong))).toMatch(/\/worker\/replicaCount.*got string, want integer/);
    expect(failureOf(['lint', '--strict', CHART_DIR, ...valuesArgs(onDefaults(wrong))])).toMatch(
      /worker\/replicaCount/,
    );
    const wrongEnv: ValuesInput = { values: { worker: { env: { WORKER_DRAIN_TIMEOUT_MS: '30s' } } } };
    expect(failureOf(templateArgs(wrongEnv))).toMatch(/\/worker\/env\/WORKER_DRAIN_TIMEOUT_MS/);
  });

  it.each([
    ['a top-level key', { replicas: 3 }, /additional properties 'replicas' not allowed/],
    [
      'a nested key',
      { worker: { gpu: { cuont: 2 } } },
      /\/worker\/gpu.*additional properties 'cuont' not allowed/,
    ],
    [
      'an env var the chart does not expose',
      { worker: { env: { WORKER_TEST_HOOKS: true } } },
      /WORKER_TEST_HOOKS/,
    ],
    ['a chart-owned env var', { gateway: { env: { GATEWAY_PORT: 9090 } } }, /GATEWAY_PORT/],
    [
      'a field inside a snapshot model',
      {
        snapshot: {
          models: [
            {
              id: 'a:1',
              name: 'a',
              version: '1',
              task: 'raw',
              artifact: { uri: 'file:///m.onnx', sha256: 'a'.repeat(64) },
              batching: { maxBatchSize: 8, maxQueueDelay: 5 },
            },
          ],
        },
      },
      /maxQueueDelay/,
    ],
  ] as const)('rejects %s that the schema does not know', (_what, values, message) => {
    expect(failureOf(templateArgs({ values }))).toMatch(message);
  });

  it('runs migrations before install and upgrade as a hook Job in the registry image', () => {
    const job = findObject(defaults, 'Job', '-migrations');
    expect(job.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(job.metadata.annotations?.['helm.sh/hook-delete-policy']).toBe(
      'before-hook-creation,hook-succeeded',
    );
    const [container] = podSpecOf(job).containers;
    expect(container?.command).toEqual(['node', 'apps/registry/dist/database/migrate.js', 'up']);
    expect(container?.image).toBe(
      podSpecOf(findObject(defaults, 'Deployment', '-registry')).containers[0]?.image,
    );
  });

  it('takes credentials only from the existing Secret by default, through secretKeyRef', () => {
    expect(defaults.filter((object) => object.kind === 'Secret')).toEqual([]);
    for (const objects of [defaults, production]) {
      const secretName = objects === defaults ? 'modelgate-credentials' : 'modelgate-prod-credentials';
      const registry = podSpecOf(findObject(objects, 'Deployment', '-registry')).containers[0];
      const refs = (registry?.env ?? []).map((env) => [env.name, env.valueFrom?.secretKeyRef?.name]);
      expect(refs).toEqual([
        ['DATABASE_URL', secretName],
        ['REDIS_URL', secretName],
        ['REGISTRY_BOOTSTRAP_TOKEN', secretName],
        ['HF_TOKEN', secretName],
      ]);
      for (const workload of workloads(objects)) {
        for (const container of podSpecOf(workload).containers) {
          expect(
            (container.env ?? []).filter(
              (env) => env.value !== undefined && /URL|TOKEN|PASSWORD/.test(env.name),
            ),
          ).toEqual([]);
        }
      }
    }
  });

  it('gives only the registry a Hugging Face token, from the Secret key credentials.keys.hfToken ("" = none)', () => {
    const registryEnv = (objects: K8sObject[]) =>
      podSpecOf(findObject(objects, 'Deployment', '-registry')).containers[0]?.env ?? [];
    const hfToken = registryEnv(defaults).find((env) => env.name === 'HF_TOKEN');
    expect(hfToken?.valueFrom?.secretKeyRef).toMatchObject({ key: 'HF_TOKEN', optional: true });
    for (const workload of workloads(defaults).filter((w) => !w.metadata.name.endsWith('-registry'))) {
      for (const container of podSpecOf(workload).containers) {
        expect((container.env ?? []).map((env) => env.name)).not.toContain('HF_TOKEN');
      }
    }
    const off = renderChart(onDefaults({ values: { credentials: { keys: { hfToken: '' } } } }));
    expect(registryEnv(off).map((env) => env.name)).not.toContain('HF_TOKEN');
  });

  it('creates a hook Secret for the migration Job only when credentials.create is enabled', () => {
    const objects = renderChart(
      onDefaults({
        values: {
          credentials: {
            create: {
              enabled: true,
              databaseUrl: 'postgres://u:p@db:5432/mg',
              redisUrl: 'redis://r:6379',
              bootstrapToken: 'x'.repeat(32),
            },
          },
        },
      }),
    );
    const secret = findObject(objects, 'Secret', '-credentials');
    expect(secret.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(secret.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(0);
    expect(Object.keys(secret.stringData as object)).toEqual([
      'DATABASE_URL',
      'REDIS_URL',
      'REGISTRY_BOOTSTRAP_TOKEN',
    ]);
    // Live sync: gateways and workers read both keys of this Secret, not optionally.
    const create = { enabled: true, databaseUrl: 'postgres://u:p@db:5432/mg', redisUrl: 'redis://r:6379' };
    expect(failureOf(templateArgs({ values: { credentials: { create } } }))).toMatch(
      /credentials.create.bootstrapToken is required with credentials.create.enabled in configSync.mode live/,
    );
    expect(
      failureOf(
        templateArgs({
          values: {
            credentials: {
              create: { ...create, bootstrapToken: 'x'.repeat(32) },
              keys: { nodeToken: 'NODE_TOKEN' },
            },
          },
        }),
      ),
    ).toMatch(/credentials.keys.nodeToken names a key of credentials.existingSecret; the chart's own Secret/);
    const job = podSpecOf(findObject(objects, 'Job', '-migrations')).containers[0];
    expect(job?.env?.[0]?.valueFrom?.secretKeyRef?.name).toBe(secret.metadata.name);
    expect(
      failureOf(
        templateArgs({
          values: {
            credentials: {
              existingSecret: 'prod',
              create: { enabled: true, databaseUrl: 'postgres://u:p@db:5432/mg' },
            },
          },
        }),
      ),
    ).toMatch(/credentials.existingSecret \(prod\) is read only without credentials.create.enabled/);
    expect(
      failureOf(templateArgs({ values: { credentials: { create: { databaseUrl: 'postgres://db/x' } } } })),
    ).toMatch(
      /credentials.create.databaseUrl: make the chart's own Secret, which only credentials.create.enabled renders/,
    );
  });

  it('publishes workers through a headless Service that the snapshot names as the worker group address', () => {
    const service = findObject(defaults, 'Service', '-worker');
    expect((service.spec as { clusterIP?: string }).clusterIP).toBe('None');
    const staticDefaults = renderChart(onDefaults({ values: STATIC }));
    const snapshotJson = (
      findObject(staticDefaults, 'ConfigMap', '-snapshot').data as Record<string, string>
    )['snapshot.json'];
    const snapshot = parseConfigSnapshot(JSON.parse(snapshotJson ?? ''));
    expect(snapshot.workerGroups).toEqual([{ name: 'default', addresses: [`dns:///${WORKER_HOST}:8001`] }]);
  });

  it('mounts an existing snapshot ConfigMap instead of rendering one when snapshot.existingConfigMap is set', () => {
    const objects = renderChart(
      onDefaults({ values: { ...STATIC, snapshot: { existingConfigMap: 'fleet-snapshot' } } }),
    );
    expect(objects.filter((object) => object.metadata.name.endsWith('-snapshot'))).toEqual([]);
    for (const component of ['gateway', 'worker']) {
      const volumes = podSpecOf(findObject(objects, 'Deployment', `-${component}`)).volumes ?? [];
      expect(volumes.find((volume) => volume.name === 'snapshot')?.configMap).toMatchObject({
        name: 'fleet-snapshot',
      });
    }
  });

  it('renders a production snapshot that the apps’ ConfigSnapshot schema accepts', () => {
    const snapshotJson = (
      findObject(productionStatic, 'ConfigMap', '-snapshot').data as Record<string, string>
    )['snapshot.json'];
    const snapshot = parseConfigSnapshot(JSON.parse(snapshotJson ?? ''));
    expect(snapshot.revision).toBe(7);
    expect(snapshot.models.map((model) => model.id)).toEqual(['sst2:1']);
    expect(snapshot.endpoints.map((endpoint) => endpoint.name)).toEqual(['sentiment']);
    expect(snapshot.workerGroups?.[0]?.name).toBe('a100');
    for (const component of ['gateway', 'worker']) {
      const pod = podSpecOf(findObject(productionStatic, 'Deployment', `-${component}`));
      const mount = pod.containers[0]?.volumeMounts?.find((volume) => volume.name === 'snapshot');
      expect(mount).toEqual({ name: 'snapshot', mountPath: '/etc/modelgate', readOnly: true });
      const env = findObject(productionStatic, 'ConfigMap', `-${component}-env`).data as Record<
        string,
        string
      >;
      expect(env[`${component.toUpperCase()}_CONFIG_FILE`]).toBe('/etc/modelgate/snapshot.json');
      expect(env.REGISTRY_URL).toBeUndefined();
      expect(pod.containers[0]?.env).toBeUndefined();
    }
  });

  it('refuses a snapshot model whose worker group no worker of the release serves', () => {
    const input: ValuesInput = { ...PRODUCTION_STATIC, values: { worker: { group: 'h100' } } };
    expect(failureOf(templateArgs(input))).toMatch(/snapshot model sst2:1 names workerGroup "a100".*"h100"/);
  });

  it('follows the registry by default (live sync): registry URL, Redis and a node token from the Secret, pod IP advertised', () => {
    for (const [objects, secretName, tokenKey] of [
      [defaults, 'modelgate-credentials', 'REGISTRY_BOOTSTRAP_TOKEN'],
      [production, 'modelgate-prod-credentials', 'REGISTRY_NODE_TOKEN'],
    ] as const) {
      expect(objects.filter((object) => object.metadata.name.endsWith('-snapshot'))).toEqual([]);
      for (const component of ['gateway', 'worker']) {
        const env = findObject(objects, 'ConfigMap', `-${component}-env`).data as Record<string, string>;
        expect(env.REGISTRY_URL).toBe(REGISTRY_URL);
        expect(env.REDIS_KEY_PREFIX).toBe('modelgate');
        expect(env[`${component.toUpperCase()}_CONFIG_FILE`]).toBeUndefined();
        const workload = findObject(objects, 'Deployment', `-${component}`);
        expect(workload.spec).not.toHaveProperty('template.metadata.annotations.checksum/snapshot');
        const pod = podSpecOf(workload);
        expect(pod.volumes?.map((volume) => volume.name)).not.toContain('snapshot');
        const container = pod.containers[0];
        expect(container?.volumeMounts?.map((mount) => mount.name)).not.toContain('snapshot');
        const expected = [
          { name: 'REDIS_URL', valueFrom: { secretKeyRef: { name: secretName, key: 'REDIS_URL' } } },
          { name: 'REGISTRY_TOKEN', valueFrom: { secretKeyRef: { name: secretName, key: tokenKey } } },
          ...(component === 'worker'
            ? [{ name: 'WORKER_ADVERTISE_ADDRESS', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } }]
            : []),
        ];
        expect(container?.env).toEqual(expected);
      }
      const workerEnv = findObject(objects, 'ConfigMap', '-worker-env').data as Record<string, string>;
      expect(workerEnv.WORKER_GRPC_PORT).toBe('8001');
    }
    const prefixed = renderChart(
      onDefaults({ values: { registry: { env: { REDIS_KEY_PREFIX: 'mg-prod' } } } }),
    );
    for (const component of ['gateway', 'worker', 'registry']) {
      const env = findObject(prefixed, 'ConfigMap', `-${component}-env`).data as Record<string, string>;
      expect(env.REDIS_KEY_PREFIX, component).toBe('mg-prod');
    }
  });

  it('refuses static snapshot values in live mode, and an unknown configSync mode', () => {
    expect(
      failureOf(templateArgs({ values: { snapshot: { existingConfigMap: 'fleet-snapshot' } } })),
    ).toMatch(/used only with configSync.mode static/);
    expect(
      failureOf(templateArgs({ files: ['ci/static-values.yaml'], values: { configSync: { mode: 'live' } } })),
    ).toMatch(/used only with configSync.mode static/);
    expect(failureOf(templateArgs({ values: { configSync: { mode: 'push' } } }))).toMatch(/configSync\/mode/);
    expect(
      failureOf(
        templateArgs({
          files: ['ci/static-values.yaml'],
          values: { snapshot: { existingConfigMap: 'fleet-snapshot' } },
        }),
      ),
    ).toMatch(
      /snapshot.models, snapshot.endpoints and snapshot.revision describe the snapshot the chart renders/,
    );
    expect(failureOf(templateArgs({ values: { snapshot: { revision: 3 } } }))).toMatch(
      /snapshot.models, snapshot.endpoints, snapshot.revision and snapshot.existingConfigMap are used only with configSync.mode static/,
    );
    expect(
      failureOf(
        templateArgs({
          values: { ...STATIC, snapshot: { existingConfigMap: 'fleet-snapshot', revision: 3 } },
        }),
      ),
    ).toMatch(/snapshot.revision describe the snapshot the chart renders/);
    expect(
      failureOf(
        templateArgs({ values: { ...STATIC, credentials: { keys: { nodeToken: 'REGISTRY_NODE_TOKEN' } } } }),
      ),
    ).toMatch(
      /credentials.keys.nodeToken names the REGISTRY_TOKEN key of gateways and workers in configSync.mode live/,
    );
  });

  it('renders revision 1 when snapshot.revision is left unset, and keeps a given 0', () => {
    const revisionOf = (values: ValuesInput['values']): number => {
      const data = findObject(renderChart(onDefaults({ values })), 'ConfigMap', '-snapshot').data as Record<
        string,
        string
      >;
      return parseConfigSnapshot(JSON.parse(data['snapshot.json'] ?? '')).revision;
    };
    expect(revisionOf({ ...STATIC })).toBe(1);
    expect(revisionOf({ ...STATIC, snapshot: { revision: 0 } })).toBe(0);
  });
});
