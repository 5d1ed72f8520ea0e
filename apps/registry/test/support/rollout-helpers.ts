// What the rollout tests write in place of the fleet (gateway traffic and worker readiness, as
// heartbeats in Redis through the nodes' own writer) and read of the rollout API.
import { type AdminClient } from '@modelgate/admin-client';
import {
  type ModelTraffic,
  type NodeReport,
  emptyModelTraffic,
  writeHeartbeat,
} from '@modelgate/config-sync';
import { type ApiErrorBody, type RolloutView, type Route } from '@modelgate/contracts';
import { waitFor } from '@modelgate/testing';
import { type Redis } from 'ioredis';

const LATENCY_BOUNDS = [0.01, 0.1, 1];

/** The helpers, reading the registry, Redis and key prefix through getters (a test may restart them). */
export function rolloutHelpers(client: () => AdminClient, redis: () => Redis, keyPrefix: () => string) {
  const beat = (report: NodeReport) => writeHeartbeat(redis(), keyPrefix(), report, 60_000);
  /** A gateway of its own per endpoint (a beat replaces the gateway's whole report). */
  const gatewayCounts = (endpoint: string, model: string, counts: Partial<ModelTraffic>, epoch = 'epoch-1') =>
    beat({
      role: 'gateway',
      id: `gateway-${endpoint}`,
      address: `gateway-${endpoint}:8080`,
      revision: 1,
      models: {},
      traffic: {
        epoch,
        latencyBoundsSeconds: LATENCY_BOUNDS,
        endpoints: {
          [endpoint]: {
            [model]: { ...emptyModelTraffic(4), latency: [counts.served ?? 0, 0, 0, 0], ...counts },
          },
        },
      },
    });
  const workerReady = (...models: string[]) =>
    beat({
      role: 'worker',
      id: 'worker-1',
      address: '10.0.0.1:8001',
      workerGroup: 'default',
      revision: 1,
      models: Object.fromEntries(models.map((model) => [model, 'READY'])),
    });
  const rollout = async (endpoint: string) =>
    (await client().get<RolloutView>(`/v1/endpoints/${endpoint}/rollout`)).body;
  const routes = async (endpoint: string) =>
    (await client().get<{ routes: Route[] }>(`/v1/endpoints/${endpoint}`)).body.routes;
  const until = async (endpoint: string, done: (view: RolloutView) => boolean): Promise<RolloutView> => {
    let last: RolloutView | undefined;
    await waitFor(async () => done((last = await rollout(endpoint))), {
      timeoutMs: 20_000,
      describe: () => JSON.stringify(last, null, 1),
    });
    return last!;
  };
  const start = (endpoint: string, body: Record<string, unknown>) =>
    client().post<RolloutView & ApiErrorBody>(`/v1/endpoints/${endpoint}/rollouts`, body);
  return { gatewayCounts, workerReady, rollout, routes, until, start };
}
