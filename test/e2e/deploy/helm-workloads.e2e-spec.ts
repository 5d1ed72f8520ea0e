// The chart's workloads: scheduling, grace periods, volumes, network policies, autoscaling,
// security contexts and monitoring objects (helm-chart.e2e-spec.ts: values, credentials, config sync).
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  failureOf,
  findObject,
  type K8sObject,
  onDefaults,
  renderChart,
  templateArgs,
  type ValuesInput,
} from './support/helm.js';
import { componentOf, podSpecOf, workloads } from './support/pod-spec.js';
import { repoPath } from './support/repo.js';

const DEFAULTS: ValuesInput = onDefaults();
const PRODUCTION: ValuesInput = { files: ['ci/production-values.yaml'] };

let defaults: K8sObject[];
let production: K8sObject[];

beforeAll(() => {
  defaults = renderChart(DEFAULTS);
  production = renderChart(PRODUCTION);
});

describe('helm/modelgate workloads', () => {
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
    // A drain timeout of 0 is one (15 s of headroom only), not "unset" (30 s).
    const noDrain = renderChart(onDefaults({ values: { worker: { env: { WORKER_DRAIN_TIMEOUT_MS: 0 } } } }));
    expect(podSpecOf(findObject(noDrain, 'Deployment', '-worker')).terminationGracePeriodSeconds).toBe(15);
    const amd = renderChart(onDefaults({ values: { worker: { gpu: { resourceName: 'amd.com/gpu' } } } }));
    expect(podSpecOf(findObject(amd, 'Deployment', '-worker')).containers[0]?.resources?.limits).toEqual({
      'amd.com/gpu': 1,
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

  it('allowlists the registry’s Service host for http(s) artifacts, and no host while they are off', () => {
    const envOf = (objects: K8sObject[], component: string) =>
      findObject(objects, 'ConfigMap', `-${component}-env`).data as Record<string, string>;
    const registryHost = 'mg-modelgate-registry.serving.svc.cluster.local';
    const given = renderChart(
      onDefaults({ values: { gateway: { env: { GATEWAY_ARTIFACT_ALLOWED_HOSTS: 'models.internal' } } } }),
    );
    expect(envOf(given, 'gateway').GATEWAY_ARTIFACT_ALLOWED_HOSTS).toBe(`${registryHost},models.internal`);
    expect(envOf(given, 'worker').WORKER_ARTIFACT_ALLOWED_HOSTS).toBe(registryHost);
    const off = renderChart(
      onDefaults({
        values: {
          gateway: { env: { GATEWAY_ALLOW_HTTP_ARTIFACTS: false } },
          worker: { env: { WORKER_ALLOW_HTTP_ARTIFACTS: false } },
        },
      }),
    );
    expect(envOf(off, 'gateway')).not.toHaveProperty('GATEWAY_ARTIFACT_ALLOWED_HOSTS');
    expect(envOf(off, 'worker')).not.toHaveProperty('WORKER_ARTIFACT_ALLOWED_HOSTS');
    expect(
      failureOf(
        templateArgs({
          values: {
            worker: {
              env: { WORKER_ALLOW_HTTP_ARTIFACTS: false, WORKER_ARTIFACT_ALLOWED_HOSTS: 'models.internal' },
            },
          },
        }),
      ),
    ).toMatch(
      /WORKER_ARTIFACT_ALLOWED_HOSTS exempts hosts of http\(s\) artifact URIs .* WORKER_ALLOW_HTTP_ARTIFACTS turns those URIs off/,
    );
  });

  it('sets gateway replicas by the HPA or by replicaCount, and refuses the settings of the other', () => {
    const hpa = findObject(defaults, 'HorizontalPodAutoscaler', '-gateway');
    expect(hpa.spec).toMatchObject({ minReplicas: 2, maxReplicas: 10 });
    expect(findObject(defaults, 'Deployment', '-gateway').spec).not.toHaveProperty('replicas');
    const fixed = renderChart(onDefaults({ values: { gateway: { autoscaling: { enabled: false } } } }));
    expect(fixed.some((object) => object.kind === 'HorizontalPodAutoscaler')).toBe(false);
    expect(findObject(fixed, 'Deployment', '-gateway').spec).toMatchObject({ replicas: 2 });
    const four = renderChart(
      onDefaults({ values: { gateway: { replicaCount: 4, autoscaling: { enabled: false } } } }),
    );
    expect(findObject(four, 'Deployment', '-gateway').spec).toMatchObject({ replicas: 4 });
    expect(failureOf(templateArgs({ values: { gateway: { replicaCount: 4 } } }))).toMatch(
      /gateway.replicaCount applies with gateway.autoscaling.enabled false; the HPA sets the replicas/,
    );
    expect(
      failureOf(templateArgs({ values: { gateway: { autoscaling: { enabled: false, maxReplicas: 20 } } } })),
    ).toMatch(/gateway.autoscaling.maxReplicas: apply only with gateway.autoscaling.enabled/);
  });

  it('scales gateways with an autoscaling/v2 CPU HPA and guards gateways and workers with PDBs', () => {
    const hpa = findObject(production, 'HorizontalPodAutoscaler', '-gateway');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    expect(hpa.spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 30,
      metrics: [
        {
          type: 'ContainerResource',
          containerResource: {
            name: 'cpu',
            container: 'gateway',
            target: { type: 'Utilization', averageUtilization: 65 },
          },
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

  it('keeps a PDB or replica count of 0 that was given, and refuses a PDB setting with its PDB off', () => {
    const zero = renderChart(
      onDefaults({
        values: {
          gateway: { replicaCount: 0, autoscaling: { enabled: false }, pdb: { minAvailable: 0 } },
          worker: { pdb: { maxUnavailable: '50%' } },
        },
      }),
    );
    expect(findObject(zero, 'Deployment', '-gateway').spec).toMatchObject({ replicas: 0 });
    expect(findObject(zero, 'PodDisruptionBudget', '-gateway').spec).toMatchObject({ minAvailable: 0 });
    expect(findObject(zero, 'PodDisruptionBudget', '-worker').spec).toMatchObject({ maxUnavailable: '50%' });
    expect(findObject(defaults, 'PodDisruptionBudget', '-gateway').spec).toMatchObject({ minAvailable: 1 });
    expect(
      failureOf(templateArgs({ values: { worker: { pdb: { enabled: false, maxUnavailable: 2 } } } })),
    ).toMatch(/worker.pdb.maxUnavailable applies only with worker.pdb.enabled/);
    expect(
      failureOf(templateArgs({ values: { gateway: { pdb: { enabled: false, minAvailable: 2 } } } })),
    ).toMatch(/gateway.pdb.minAvailable applies only with gateway.pdb.enabled/);
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

  it('routes every host to the gateway from an Ingress without hosts, and scrapes with the defaults', () => {
    const rendered = renderChart(
      onDefaults({ values: { ingress: { enabled: true }, metrics: { serviceMonitor: { enabled: true } } } }),
    );
    const backend = { service: { name: 'mg-modelgate-gateway', port: { name: 'http' } } };
    expect((findObject(rendered, 'Ingress', '-gateway').spec as { rules: unknown }).rules).toEqual([
      { http: { paths: [{ path: '/', pathType: 'Prefix', backend }] } },
    ]);
    const monitor = findObject(rendered, 'ServiceMonitor', '-gateway');
    expect((monitor.spec as { endpoints: unknown[] }).endpoints[0]).toEqual({
      port: 'http',
      path: '/metrics',
      interval: '30s',
      honorLabels: true,
    });
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
