// Values that pass the schema one by one but cannot work together: an app would refuse them at
// start (a crash-looping pod), or Kubernetes or Prometheus would act on none of them. The chart
// refuses them with a message instead.
import { describe, expect, it } from 'vitest';
import { failureOf, findObject, onDefaults, renderChart, templateArgs } from './support/helm.js';

/** Static mode with the chart's own Secret and no Redis (the one setup where the chart knows there is none). */
const staticWithoutRedis = {
  configSync: { mode: 'static' },
  credentials: { create: { enabled: true, databaseUrl: 'postgres://u:p@db:5432/mg' } },
};

describe('helm/modelgate: values that cannot work together', () => {
  it('refuses a ServiceMonitor scrapeTimeout longer than its interval, and leaves an unset one out', () => {
    const monitor = (serviceMonitor: Record<string, unknown>) =>
      renderChart(
        onDefaults({ values: { metrics: { serviceMonitor: { enabled: true, ...serviceMonitor } } } }),
      );
    const endpointOf = (objects: ReturnType<typeof monitor>) =>
      (findObject(objects, 'ServiceMonitor', 'gateway').spec as { endpoints: Record<string, unknown>[] })
        .endpoints[0];
    // A 5 s interval used to render the fixed 10 s timeout, which Prometheus refuses.
    expect(endpointOf(monitor({ interval: '5s' }))).toMatchObject({ interval: '5s' });
    expect(endpointOf(monitor({ interval: '5s' }))).not.toHaveProperty('scrapeTimeout');
    expect(endpointOf(monitor({ interval: '1m', scrapeTimeout: '59s' }))).toMatchObject({
      scrapeTimeout: '59s',
    });
    expect(
      failureOf(
        templateArgs({
          values: { metrics: { serviceMonitor: { enabled: true, interval: '5s', scrapeTimeout: '6000ms' } } },
        }),
      ),
    ).toMatch(/metrics.serviceMonitor.scrapeTimeout 6000ms is longer than the scrape interval 5s/);
    expect(
      failureOf(
        templateArgs({ values: { metrics: { serviceMonitor: { enabled: true, scrapeTimeout: '1m' } } } }),
      ),
    ).toMatch(/scrapeTimeout 1m is longer than the scrape interval 30s/);
  });

  it('refuses a gateway PodDisruptionBudget that keeps every replica, and an HPA minimum above its maximum', () => {
    const drainBlocked =
      /gateway.pdb.minAvailable (1|100%|3) keeps all \d gateway replicas \(the fewest they run\)/;
    for (const gateway of [
      { autoscaling: { enabled: false }, replicaCount: 1 },
      { autoscaling: { minReplicas: 1 } },
      { autoscaling: { minReplicas: 3 }, pdb: { minAvailable: 3 } },
      { pdb: { minAvailable: '100%' } },
    ]) {
      expect(failureOf(templateArgs({ values: { gateway } }))).toMatch(drainBlocked);
    }
    // Fine: one replica without a PDB, a PDB below the fewest replicas, or a share that leaves one.
    renderChart(
      onDefaults({
        values: { gateway: { autoscaling: { enabled: false }, replicaCount: 1, pdb: { enabled: false } } },
      }),
    );
    const pdb = findObject(
      renderChart(onDefaults({ values: { gateway: { pdb: { minAvailable: '50%' } } } })),
      'PodDisruptionBudget',
      'gateway',
    );
    expect(pdb.spec).toMatchObject({ minAvailable: '50%' });
    expect(failureOf(templateArgs({ values: { gateway: { autoscaling: { minReplicas: 12 } } } }))).toMatch(
      /gateway.autoscaling.minReplicas \(12\) is above maxReplicas \(10\)/,
    );
  });

  it("scales the gateways on the gateway container's CPU, which a sidecar without a request cannot leave undefined", () => {
    const objects = renderChart(
      onDefaults({
        values: { gateway: { sidecars: [{ name: 'shipper', image: 'fluent/fluent-bit:3.0' }] } },
      }),
    );
    const hpa = findObject(objects, 'HorizontalPodAutoscaler', 'gateway');
    expect((hpa.spec as { metrics: unknown[] }).metrics).toEqual([
      {
        type: 'ContainerResource',
        containerResource: {
          name: 'cpu',
          container: 'gateway',
          target: { type: 'Utilization', averageUtilization: 70 },
        },
      },
    ]);
  });

  it('refuses a worker load retry whose first wait is above the longest, which the worker refuses at start', () => {
    expect(
      failureOf(templateArgs({ values: { worker: { env: { WORKER_LOAD_RETRY_BASE_MS: 60000 } } } })),
    ).toMatch(
      /worker.env.WORKER_LOAD_RETRY_BASE_MS \(60000, the first wait\) is above WORKER_LOAD_RETRY_MAX_MS \(30000/,
    );
    expect(
      failureOf(templateArgs({ values: { worker: { env: { WORKER_LOAD_RETRY_MAX_MS: 500 } } } })),
    ).toMatch(/\(1000, the first wait\) is above WORKER_LOAD_RETRY_MAX_MS \(500/);
    renderChart(
      onDefaults({
        values: { worker: { env: { WORKER_LOAD_RETRY_BASE_MS: 60000, WORKER_LOAD_RETRY_MAX_MS: 120000 } } },
      }),
    );
  });

  it('refuses Redis-only registry settings where the chart gives the registry no Redis, and checks for it otherwise', () => {
    expect(
      failureOf(
        templateArgs({
          values: { ...staticWithoutRedis, registry: { env: { REGISTRY_ROLLOUT_TICK_MS: 1000 } } },
        }),
      ),
    ).toMatch(
      /registry.env.REGISTRY_ROLLOUT_TICK_MS acts only with Redis, and the chart's Secret .* has no credentials.create.redisUrl/,
    );
    renderChart(onDefaults({ values: staticWithoutRedis }));
    renderChart(
      onDefaults({
        values: {
          ...staticWithoutRedis,
          credentials: { create: { ...staticWithoutRedis.credentials.create, redisUrl: 'redis://r:6379' } },
          registry: { env: { REGISTRY_ROLLOUT_TICK_MS: 1000 } },
        },
      }),
    );
    // With an existing Secret the chart cannot tell: its credentials check then expects the Redis key.
    const checkArgs = (registry: Record<string, unknown>) => {
      const objects = renderChart(onDefaults({ values: { configSync: { mode: 'static' }, registry } }));
      const pod = findObject(objects, 'Pod', 'credentials-check');
      return (pod.spec as { containers: { command: string[] }[] }).containers[0]!.command;
    };
    expect(checkArgs({ env: { REDIS_KEY_PREFIX: 'mg' } }).join(' ')).toMatch(/REDIS_URL='redis:/);
    expect(checkArgs({}).join(' ')).not.toMatch(/REDIS_URL=/);
  });

  it('binds every app to listenAddress: 0.0.0.0 by default, :: for IPv6 clusters, nothing else', () => {
    const hosts = (values: Record<string, unknown>) => {
      const objects = renderChart(onDefaults({ values }));
      return ['gateway', 'worker', 'registry'].map(
        (app) =>
          (findObject(objects, 'ConfigMap', `${app}-env`).data as Record<string, string>)[
            `${app.toUpperCase()}_HOST`
          ],
      );
    };
    expect(hosts({})).toEqual(['0.0.0.0', '0.0.0.0', '0.0.0.0']);
    expect(hosts({ listenAddress: '::' })).toEqual(['::', '::', '::']);
    expect(failureOf(templateArgs({ values: { listenAddress: 'localhost' } }))).toMatch(/listenAddress/);
  });

  it('passes the gateway its asynchronous job settings in live mode, and refuses them in static mode', () => {
    const env = { GATEWAY_ASYNC_RESULT_TTL_SECONDS: 600, GATEWAY_ASYNC_CONCURRENCY: 2 };
    const configMap = findObject(
      renderChart(onDefaults({ values: { gateway: { env } } })),
      'ConfigMap',
      'gateway-env',
    );
    expect(configMap.data).toMatchObject({
      GATEWAY_ASYNC_RESULT_TTL_SECONDS: '600',
      GATEWAY_ASYNC_CONCURRENCY: '2',
    });
    expect(
      failureOf(
        templateArgs({
          values: { ...staticWithoutRedis, gateway: { env: { GATEWAY_ASYNC_CONCURRENCY: 2 } } },
        }),
      ),
    ).toMatch(/gateway.env.GATEWAY_ASYNC_CONCURRENCY: asynchronous jobs live in Redis, .* unset it/);
    expect(
      failureOf(templateArgs({ values: { gateway: { env: { GATEWAY_ASYNC_CONCURRENCY: 0 } } } })),
    ).toMatch(/GATEWAY_ASYNC_CONCURRENCY/);
  });

  it('renders no config-lag alert in static mode, where nodes do not follow the registry, and refuses turning it on', () => {
    const alerts = (values: Record<string, unknown>) => {
      const rule = findObject(renderChart(onDefaults({ values })), 'PrometheusRule', 'mg-modelgate');
      return (rule.spec as { groups: { rules: { alert: string }[] }[] }).groups.flatMap((group) =>
        group.rules.map((r) => r.alert),
      );
    };
    const enabled = { metrics: { prometheusRule: { enabled: true } } };
    expect(alerts(enabled)).toContain('ModelgateConfigLag');
    const staticMode = { ...enabled, configSync: { mode: 'static' } };
    expect(alerts(staticMode)).not.toContain('ModelgateConfigLag');
    expect(alerts(staticMode)).toContain('ModelgateEndpointWithoutReadyWorkers');
    expect(
      failureOf(
        templateArgs({
          values: {
            configSync: { mode: 'static' },
            metrics: { prometheusRule: { enabled: true, configLag: { enabled: true } } },
          },
        }),
      ),
    ).toMatch(/in configSync.mode static the nodes serve snapshot.revision/);
    expect(
      failureOf(
        templateArgs({
          values: {
            configSync: { mode: 'static' },
            metrics: { prometheusRule: { enabled: true, configLag: { for: '5m' } } },
          },
        }),
      ),
    ).toMatch(
      /metrics.prometheusRule.configLag.for: acts only with metrics.prometheusRule.configLag.enabled/,
    );
  });

  it('hides the node’s GPUs from a worker that asks for none, and refuses an S3 endpoint without a host', () => {
    const workerEnv = (worker: Record<string, unknown>) => {
      const deployment = findObject(renderChart(onDefaults({ values: { worker } })), 'Deployment', 'worker');
      const pod = (
        deployment.spec as { template: { spec: { containers: { name: string; env?: unknown[] }[] } } }
      ).template.spec;
      return pod.containers.find((container) => container.name === 'worker')?.env ?? [];
    };
    expect(workerEnv({ gpu: { count: 0 } })).toContainEqual({
      name: 'NVIDIA_VISIBLE_DEVICES',
      value: 'void',
    });
    expect(workerEnv({ gpu: { count: 1 } })).not.toContainEqual(
      expect.objectContaining({ name: 'NVIDIA_VISIBLE_DEVICES' }),
    );
    const own = { name: 'NVIDIA_VISIBLE_DEVICES', value: 'none' };
    expect(
      workerEnv({ gpu: { count: 0 }, extraEnv: [own] }).filter(
        (e) => (e as { name: string }).name === own.name,
      ),
    ).toEqual([own]);
    expect(failureOf(templateArgs({ values: { worker: { env: { S3_ENDPOINT_URL: 'http://' } } } }))).toMatch(
      /S3_ENDPOINT_URL/,
    );
  });
});
