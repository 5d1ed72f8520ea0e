// gateway.grpc: the gateway's public Open Inference Protocol gRPC face (GATEWAY_GRPC_PORT) on 8003,
// a `grpc-api` Service port, and the NetworkPolicy letting its clients in.
import { beforeAll, describe, expect, it } from 'vitest';
import { gatewayConfigSchema } from '../../../apps/gateway/src/gateway.config.js';
import { findObject, type K8sObject, onDefaults, renderChart } from './support/helm.js';
import { podSpecOf } from './support/pod-spec.js';

let plain: K8sObject[];
let grpc: K8sObject[];

beforeAll(() => {
  plain = renderChart(onDefaults());
  grpc = renderChart(onDefaults({ values: { gateway: { grpc: { enabled: true, servicePort: 9001 } } } }));
});

const gatewayEnv = (objects: readonly K8sObject[]) =>
  findObject(objects, 'ConfigMap', '-gateway-env').data as Record<string, string>;

describe('helm/modelgate gateway.grpc', () => {
  it('is off by default: no GATEWAY_GRPC_PORT, no gRPC port', () => {
    expect(gatewayEnv(plain).GATEWAY_GRPC_PORT).toBeUndefined();
    const service = findObject(plain, 'Service', '-gateway').spec as { ports: { name: string }[] };
    expect(service.ports.map((port) => port.name)).toEqual(['http']);
  });

  it('serves the face on 8003 behind the Service port, the gateway reads the setting, and the NetworkPolicy lets clients in', () => {
    const env = gatewayEnv(grpc);
    expect(env.GATEWAY_GRPC_PORT).toBe('8003');
    expect(gatewayConfigSchema.shape.GATEWAY_GRPC_PORT.parse(env.GATEWAY_GRPC_PORT)).toBe(8003);
    const [container] = podSpecOf(findObject(grpc, 'Deployment', '-gateway')).containers;
    expect(container?.ports?.find((port) => port.name === 'grpc-api')?.containerPort).toBe(8003);
    const service = findObject(grpc, 'Service', '-gateway').spec as {
      ports: { name: string; port: number; targetPort: string; appProtocol?: string }[];
    };
    expect(service.ports.find((port) => port.name === 'grpc-api')).toEqual({
      name: 'grpc-api',
      port: 9001,
      targetPort: 'grpc-api',
      protocol: 'TCP',
      appProtocol: 'grpc',
    });
    const policy = grpc.find(
      (object) => object.kind === 'NetworkPolicy' && object.metadata.name.endsWith('-gateway'),
    )?.spec as { ingress: { ports?: { port: number }[] }[] } | undefined;
    expect(policy?.ingress[0]?.ports?.map((port) => port.port)).toEqual([8080, 8003]);
  });
});
