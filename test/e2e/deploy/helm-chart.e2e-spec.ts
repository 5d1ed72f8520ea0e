import { readdirSync, readFileSync } from 'node:fs';
import { parseConfigSnapshot } from '@modelgate/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  CHART_DIR,
  findObject,
  type K8sObject,
  onDefaults,
  RELEASE,
  renderChart,
  runHelm,
  type ValuesInput,
  valuesArgs,
} from './support/helm.js';
import { validateKubernetesObject } from './support/kubernetes-schemas.js';
import { componentOf, podSpecOf, workloads } from './support/pod-spec.js';
import { repoPath } from './support/repo.js';

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

/** helm's combined output of a command expected to fail. */
function failureOf(args: readonly string[]): string {
  const result = runHelm(args);
  expect(result.status, 'helm should have refused these values').not.toBe(0);
  return result.stderr + result.stdout;
}

/** `helm template` arguments for `input` on top of the default values (see onDefaults). */
function templateArgs(input: ValuesInput): string[] {
  return [
    'template',
    RELEASE.name,
    CHART_DIR,
    '--namespace',
    RELEASE.namespace,
    ...valuesArgs(onDefaults(input)),
  ];
}

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
    const wrong: ValuesInput = { values: { gateway: { replicaCount: 'two' } } };
    expect(failureOf(templateArgs(wrong))).toMatch(/\/gateway\/replicaCount.*got string, want integer/);
    expect(failureOf(['lint', '--strict', CHART_DIR, ...valuesArgs(onDefaults(wrong))])).toMatch(
      /gateway\/replicaCount/,
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
              bootstrapToken: 'x'.repeat(32),
            },
          },
        },
      }),
    );
    const secret = findObject(objects, 'Secret', '-credentials');
    expect(secret.metadata.annotations?.['helm.sh/hook']).toBe('pre-install,pre-upgrade');
    expect(Number(secret.metadata.annotations?.['helm.sh/hook-weight'])).toBeLessThan(0);
    expect(Object.keys(secret.stringData as object)).toEqual(['DATABASE_URL', 'REGISTRY_BOOTSTRAP_TOKEN']);
    const job = podSpecOf(findObject(objects, 'Job', '-migrations')).containers[0];
    expect(job?.env?.[0]?.valueFrom?.secretKeyRef?.name).toBe(secret.metadata.name);
  });

  it('gives workers GPU limits, scheduling from values, gRPC readiness and a grace period past the drain timeout', () => {
    const worker = findObject(production, 'Deployment', '-worker');
    const pod = podSpecOf(worker);
    const container = pod.containers[0];
    expect(container?.resources?.limits?.['nvidia.com/gpu']).toBe(1);
    expect(pod.nodeSelector).toEqual({ 'nvidia.com/gpu.present': 'true' });
    expect(pod.tolerations).toEqual([{ key: 'nvidia.com/gpu', operator: 'Exists', effect: 'NoSchedule' }]);
    expect(JSON.stringify(pod.affinity)).toContain('NVIDIA-A100-SXM4-80GB');
    expect(container?.readinessProbe?.grpc).toEqual({ port: 8001 });
    expect(container?.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'metrics' });
    for (const objects of [defaults, production]) {
      const spec = podSpecOf(findObject(objects, 'Deployment', '-worker'));
      const env = findObject(objects, 'ConfigMap', '-worker-env').data as Record<string, string>;
      expect((spec.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(
        Number(env.WORKER_DRAIN_TIMEOUT_MS),
      );
    }
    const cpuOnly = renderChart(
      onDefaults({
        values: { worker: { gpu: { count: 0 }, image: { repository: 'modelgate/worker-cpu' } } },
      }),
    );
    expect(podSpecOf(findObject(cpuOnly, 'Deployment', '-worker')).containers[0]?.resources?.limits).toEqual({
      memory: '8Gi',
    });
  });

  it('gives gateways a grace period past their shutdown delay plus drain timeout, and a readiness probe that no endpoint can fail', () => {
    const custom = renderChart(
      onDefaults({
        values: {
          gateway: {
            env: { GATEWAY_SHUTDOWN_DELAY_MS: 12_500, GATEWAY_DRAIN_TIMEOUT_MS: 0 },
            terminationGraceExtraSeconds: 1,
          },
        },
      }),
    );
    const graces = [defaults, production, custom].map((objects) => {
      const spec = podSpecOf(findObject(objects, 'Deployment', '-gateway'));
      const env = findObject(objects, 'ConfigMap', '-gateway-env').data as Record<string, string>;
      const grace = spec.terminationGracePeriodSeconds ?? 30;
      expect(grace * 1000).toBeGreaterThan(
        Number(env.GATEWAY_SHUTDOWN_DELAY_MS) + Number(env.GATEWAY_DRAIN_TIMEOUT_MS),
      );
      return grace;
    });
    // 5 s delay + 30 s drain + 5 s extra; 12.5 s rounds up to 13 s, + 0 + 1.
    expect(graces).toEqual([40, 40, 14]);
    const container = podSpecOf(findObject(defaults, 'Deployment', '-gateway')).containers[0];
    // The gateway delays its own exit: no preStop sleep (the image need not have a shell).
    expect(container).not.toHaveProperty('lifecycle');
    expect(container?.readinessProbe).toMatchObject({
      httpGet: { path: '/health/ready' },
      failureThreshold: 1,
    });
  });

  it('refuses the fixed gateway grace period it now derives, and a negative shutdown delay', () => {
    expect(failureOf(templateArgs({ values: { gateway: { terminationGracePeriodSeconds: 30 } } }))).toMatch(
      /terminationGracePeriodSeconds/,
    );
    expect(
      failureOf(templateArgs({ values: { gateway: { env: { GATEWAY_SHUTDOWN_DELAY_MS: -1 } } } })),
    ).toMatch(/GATEWAY_SHUTDOWN_DELAY_MS/);
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
  });

  it("creates the registry's artifacts claim from its settings, and refuses them where the chart creates no claim", () => {
    const volumeOf = (objects: K8sObject[], component: string, name: string) =>
      (podSpecOf(findObject(objects, 'Deployment', `-${component}`)).volumes as { name: string }[]).find(
        (volume) => volume.name === name,
      );
    const claim = findObject(defaults, 'PersistentVolumeClaim', '-registry-artifacts');
    expect(claim.spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      resources: { requests: { storage: '20Gi' } },
    });
    expect(findObject(production, 'PersistentVolumeClaim', '-registry-artifacts').spec).toEqual({
      accessModes: ['ReadWriteOnce'],
      storageClassName: 'premium-rwo',
      resources: { requests: { storage: '200Gi' } },
    });
    const existing = renderChart(
      onDefaults({ values: { registry: { persistence: { existingClaim: 'artifacts' } } } }),
    );
    expect(existing.some((object) => object.kind === 'PersistentVolumeClaim')).toBe(false);
    expect(volumeOf(existing, 'registry', 'artifacts')).toEqual({
      name: 'artifacts',
      persistentVolumeClaim: { claimName: 'artifacts' },
    });
    expect(
      failureOf(
        templateArgs({ values: { registry: { persistence: { existingClaim: 'artifacts', size: '50Gi' } } } }),
      ),
    ).toMatch(
      /registry.persistence.size: describe the claim the chart creates; with registry.persistence.existingClaim the existing claim's own apply/,
    );
    expect(
      failureOf(
        templateArgs({
          values: {
            registry: {
              persistence: { enabled: false, existingClaim: 'artifacts', accessModes: ['ReadWriteMany'] },
            },
          },
        }),
      ),
    ).toMatch(
      /registry.persistence.existingClaim, registry.persistence.accessModes: act only with registry.persistence.enabled/,
    );
  });

  it("sizes the workers' cache emptyDir, and refuses a size limit beside an existing claim", () => {
    const cacheOf = (objects: K8sObject[]) =>
      (podSpecOf(findObject(objects, 'Deployment', '-worker')).volumes as { name: string }[]).find(
        (volume) => volume.name === 'cache',
      );
    expect(cacheOf(defaults)).toEqual({ name: 'cache', emptyDir: { sizeLimit: '20Gi' } });
    const shared = renderChart(
      onDefaults({ values: { worker: { cache: { existingClaim: 'model-cache' } } } }),
    );
    expect(cacheOf(shared)).toEqual({ name: 'cache', persistentVolumeClaim: { claimName: 'model-cache' } });
    expect(
      failureOf(
        templateArgs({ values: { worker: { cache: { existingClaim: 'model-cache', sizeLimit: '5Gi' } } } }),
      ),
    ).toMatch(/worker.cache.sizeLimit is the emptyDir's limit; with worker.cache.existingClaim/);
  });

  it('lets gateways and workers reach the registry’s port (config snapshots, artifacts)', () => {
    const policy = findObject(defaults, 'NetworkPolicy', '-registry');
    const [rule] = (policy.spec as { ingress: { from: unknown[]; ports: unknown[] }[] }).ingress;
    expect(rule?.ports).toEqual([{ port: 8081, protocol: 'TCP' }]);
    for (const component of ['gateway', 'worker']) {
      expect(rule?.from).toContainEqual({
        podSelector: {
          matchLabels: {
            'app.kubernetes.io/name': 'modelgate',
            'app.kubernetes.io/instance': 'mg',
            'app.kubernetes.io/component': component,
          },
        },
      });
    }
  });

  it('scales gateways with an autoscaling/v2 CPU HPA and guards gateways and workers with PDBs', () => {
    const hpa = findObject(production, 'HorizontalPodAutoscaler', '-gateway');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 30,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 65 } },
        },
      ],
    });
    expect(
      (findObject(production, 'Deployment', '-gateway').spec as { replicas?: number }).replicas,
    ).toBeUndefined();
    expect(findObject(production, 'PodDisruptionBudget', '-gateway').spec).toMatchObject({ minAvailable: 2 });
    expect(findObject(production, 'PodDisruptionBudget', '-worker').spec).toMatchObject({
      maxUnavailable: 1,
    });
  });

  it('runs every container as non-root with a read-only root filesystem, no capabilities and emptyDir /tmp', () => {
    for (const objects of [defaults, production]) {
      for (const workload of workloads(objects)) {
        const pod = podSpecOf(workload);
        expect(pod.securityContext, workload.metadata.name).toMatchObject({
          runAsNonRoot: true,
          runAsUser: 1000,
        });
        expect(pod.automountServiceAccountToken).toBe(false);
        for (const container of pod.containers) {
          expect(container.securityContext, container.name).toMatchObject({
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          });
          const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
          const volume = pod.volumes?.find((candidate) => candidate.name === tmp?.name);
          expect(volume?.emptyDir, `${container.name} needs an emptyDir on /tmp`).toBeDefined();
        }
      }
    }
  });

  it('lets only gateways reach the workers’ inference port, and monitoring reach the metrics port', () => {
    const policy = findObject(defaults, 'NetworkPolicy', '-worker');
    expect(policy.spec).toMatchObject({
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'worker' } },
      policyTypes: ['Ingress'],
      ingress: [
        {
          from: [
            {
              podSelector: {
                matchLabels: { 'app.kubernetes.io/component': 'gateway', 'app.kubernetes.io/instance': 'mg' },
              },
            },
          ],
          ports: [{ port: 8001, protocol: 'TCP' }],
        },
        {
          from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'monitoring' } } }],
          ports: [{ port: 8002, protocol: 'TCP' }],
        },
      ],
    });
  });

  it('renders ServiceMonitors and the Ingress only when enabled', () => {
    expect(
      defaults.filter((object) => object.kind === 'ServiceMonitor' || object.kind === 'Ingress'),
    ).toEqual([]);
    const monitors = production.filter((object) => object.kind === 'ServiceMonitor');
    expect(monitors.map(componentOf).sort()).toEqual(['gateway', 'registry', 'worker']);
    for (const monitor of monitors) {
      const port = (monitor.spec as { endpoints: { port: string }[] }).endpoints[0]?.port;
      const service = findObject(production, 'Service', `-${componentOf(monitor)}`);
      expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toContain(port);
      expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
    }
    const ingress = findObject(production, 'Ingress', '-gateway');
    expect(JSON.stringify(ingress.spec)).toContain('"name":"mg-modelgate-gateway"');
  });

  it('ships a Grafana dashboard whose queries use only metrics the apps register', () => {
    const dashboard = findObject(defaults, 'ConfigMap', '-dashboard');
    expect(dashboard.metadata.labels?.grafana_dashboard).toBe('1');
    const json = (dashboard.data as Record<string, string>)['modelgate.json'] ?? '';
    const used = new Set(
      [...json.matchAll(/modelgate_[a-z_]+/g)].map(([name]) => name.replace(/_(bucket|sum|count)$/, '')),
    );
    const registered = new Set<string>();
    for (const dir of [
      'apps/gateway/src',
      'apps/worker/src',
      'apps/registry/src',
      'libs/observability/src',
    ]) {
      for (const file of readdirSync(repoPath(dir), { recursive: true, encoding: 'utf8' })) {
        if (!file.endsWith('.ts') || file.endsWith('.spec.ts')) continue;
        for (const [, name] of readFileSync(repoPath(dir, file), 'utf8').matchAll(
          /name: '(modelgate_[a-z_]+)'/g,
        )) {
          registered.add(name ?? '');
        }
      }
    }
    expect([...used].filter((name) => !registered.has(name))).toEqual([]);
    for (const metric of [
      'modelgate_requests_total',
      'modelgate_stage_duration_seconds',
      'modelgate_request_duration_seconds',
      'modelgate_batch_size',
      'modelgate_queue_depth',
      'modelgate_model_ready',
      'modelgate_config_revision',
      'modelgate_registry_config_revision',
      'modelgate_request_failures_total',
      'modelgate_inference_failures_total',
      'modelgate_model_execution_provider',
      'modelgate_model_load_duration_seconds',
    ]) {
      expect(used).toContain(metric);
    }
  });
});
