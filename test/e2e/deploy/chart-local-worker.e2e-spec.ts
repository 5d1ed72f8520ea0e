// gateway.localWorker: a worker in each gateway's process (GATEWAY_LOCAL_WORKER, the co-located
// image), configured by the worker's own ConfigMap and reachable like any worker.
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayEventLoops, loadGatewayConfig } from '../../../apps/gateway/src/gateway.config.js';
import { loadWorkerConfig } from '../../../apps/worker/src/worker.config.js';
import {
  failureOf,
  findObject,
  type K8sObject,
  onDefaults,
  renderChart,
  templateArgs,
} from './support/helm.js';
import { podSpecOf } from './support/pod-spec.js';

const LOCAL = { gateway: { localWorker: { enabled: true }, env: { GATEWAY_WORKERS: 1 } } };

let plain: K8sObject[];
let local: K8sObject[];

beforeAll(() => {
  plain = renderChart(onDefaults());
  local = renderChart(onDefaults({ values: LOCAL }));
});

/** A ConfigMap's data by the name's suffix. */
function configData(objects: readonly K8sObject[], suffix: string): Record<string, string> {
  return findObject(objects, 'ConfigMap', suffix).data as Record<string, string>;
}

/** The environment the gateway container sees: its envFrom ConfigMaps, then its literal env values. */
function gatewayContainerEnv(objects: readonly K8sObject[]): Record<string, string> {
  const [container] = podSpecOf(findObject(objects, 'Deployment', '-gateway')).containers;
  const env: Record<string, string> = {};
  for (const from of container?.envFrom ?? []) {
    const name = from.configMapRef?.name;
    if (name === undefined) continue;
    const map = objects.find((object) => object.kind === 'ConfigMap' && object.metadata.name === name);
    Object.assign(env, map?.data);
  }
  for (const entry of container?.env ?? []) env[entry.name] = entry.value ?? 'from-the-cluster';
  return env;
}

describe('helm/modelgate gateway.localWorker', () => {
  it('is off by default: the gateway image, no worker ports, no WORKER_* settings in the gateway', () => {
    const [container] = podSpecOf(findObject(plain, 'Deployment', '-gateway')).containers;
    expect(container?.image).toMatch(/\/modelgate\/gateway:/);
    expect(container?.ports?.map((port) => port.containerPort)).toEqual([8080]);
    expect(Object.keys(gatewayContainerEnv(plain)).filter((key) => key.startsWith('WORKER_'))).toEqual([]);
    expect(configData(plain, '-gateway-env').GATEWAY_LOCAL_WORKER).toBeUndefined();
  });

  it('runs the co-located image with the worker ConfigMap beside the gateway one, and both apps accept that environment', () => {
    const pod = podSpecOf(findObject(local, 'Deployment', '-gateway'));
    const [container] = pod.containers;
    expect(container?.image).toMatch(/\/modelgate\/gateway-colocated:/);
    expect(container?.envFrom?.map((from) => from.configMapRef?.name)).toEqual([
      'mg-modelgate-gateway-env',
      'mg-modelgate-worker-env',
    ]);
    expect(container?.env?.find((entry) => entry.name === 'WORKER_ADVERTISE_ADDRESS')?.valueFrom).toEqual({
      fieldRef: { fieldPath: 'status.podIP' },
    });
    expect(container?.ports?.map((port) => [port.name, port.containerPort])).toEqual([
      ['http', 8080],
      ['grpc', 8001],
      ['worker-metrics', 8002],
    ]);
    expect(container?.volumeMounts).toContainEqual({
      name: 'worker-cache',
      mountPath: '/var/cache/modelgate/worker',
    });
    expect(pod.volumes).toContainEqual({ name: 'worker-cache', emptyDir: { sizeLimit: '20Gi' } });

    const env = { ...gatewayContainerEnv(local), WORKER_ADVERTISE_ADDRESS: '10.0.0.7' };
    const gateway = loadGatewayConfig(env);
    expect(gateway.GATEWAY_LOCAL_WORKER).toBe(true);
    expect(gatewayEventLoops(gateway, 16)).toBe(1);
    const worker = loadWorkerConfig(env);
    expect(worker.WORKER_GROUP).toBe('default');
    expect(worker.WORKER_GRPC_PORT).toBe(8001);
    expect(worker.WORKER_CACHE_DIR).toBe('/var/cache/modelgate/worker');
    // The separate workers keep their Deployment (worker.replicaCount) and serve beside it.
    expect(findObject(local, 'Deployment', '-worker')).toBeDefined();
  });

  it('outlasts the gateway drain and then the local worker’s in the grace period, and rolls pods on either ConfigMap', () => {
    const graceOf = (objects: K8sObject[]): number | undefined =>
      podSpecOf(findObject(objects, 'Deployment', '-gateway')).terminationGracePeriodSeconds;
    // Defaults: 5 s delay + 30 s drain + 5 s extra, and 30 s more for the worker's drain.
    expect(graceOf(plain)).toBe(40);
    expect(graceOf(local)).toBe(70);
    const annotations = (
      findObject(local, 'Deployment', '-gateway').spec as {
        template: { metadata: { annotations: Record<string, string> } };
      }
    ).template.metadata.annotations;
    expect(Object.keys(annotations)).toEqual(expect.arrayContaining(['checksum/env', 'checksum/worker-env']));
  });

  it('scrapes the local worker’s metrics and lets gateways reach its gRPC port', () => {
    const service = findObject(local, 'Service', '-gateway').spec as {
      ports: { name: string; port: number }[];
    };
    expect(service.ports.map((port) => [port.name, port.port])).toEqual([
      ['http', 80],
      ['worker-metrics', 8002],
    ]);
    const policy = findObject(local, 'NetworkPolicy', '-gateway').spec as {
      ingress: { ports: { port: number }[]; from?: unknown[] }[];
    };
    const grpc = policy.ingress.find((rule) => rule.ports.some((port) => port.port === 8001));
    expect(JSON.stringify(grpc?.from)).toContain('"app.kubernetes.io/component":"gateway"');
    const monitors = renderChart(
      onDefaults({ values: { ...LOCAL, metrics: { serviceMonitor: { enabled: true } } } }),
    );
    const endpoints = (
      findObject(monitors, 'ServiceMonitor', '-gateway').spec as { endpoints: { port: string }[] }
    ).endpoints;
    expect(endpoints.map((endpoint) => endpoint.port)).toEqual(['http', 'worker-metrics']);
  });

  it('refuses more than one event loop beside the local worker, naming the value to change', () => {
    const failure = failureOf(templateArgs({ values: { gateway: { localWorker: { enabled: true } } } }));
    expect(failure).toMatch(/gateway\.env\.GATEWAY_WORKERS is 2: set it to 1/);
    expect(
      failureOf(templateArgs({ values: { gateway: { localWorker: { enabled: true, replicas: 2 } } } })),
    ).toMatch(/localWorker/);
  });
});
