// What the rollout end-to-end tests share: a registry on real Postgres and Redis judging 2 s
// windows, one worker and one gateway following it with intervals short enough that a window sees
// most of its heartbeats, the CLI against that registry, and a wait on a rollout's status.
import { type RolloutView } from '@modelgate/contracts';
import {
  type RunningGateway,
  type RunningWorker,
  waitFor,
  ADMIN_TOKEN,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { runModelgate } from '../../../apps/cli/test/support/cli-process.js';
import { type Isolation, isolate } from '../../../apps/registry/test/support/registry-harness.js';
import { startLiveWorkerAndGateway } from './live-stack.js';

/** A registry, then (once its models are in) a worker and a gateway following it. */
export class RolloutStack {
  iso!: Isolation;
  registry!: RunningRegistry;
  worker!: RunningWorker;
  gateway!: RunningGateway;

  /** Starts the registry (rollouts ticking every 200 ms). */
  async startRegistry(): Promise<RunningRegistry> {
    this.iso = await isolate();
    this.registry = await startRegistryProcess({ ...this.iso.env, REGISTRY_ROLLOUT_TICK_MS: '200' });
    return this.registry;
  }

  /** Starts the worker (with `workerEnv`) and the gateway, and waits until `warm` answers 200. */
  async startNodes(warm: { path: string; body: unknown }, workerEnv: Record<string, string> = {}) {
    ({ worker: this.worker, gateway: this.gateway } = await startLiveWorkerAndGateway(
      this.registry,
      this.iso,
      {
        worker: { WORKER_HEARTBEAT_TTL_MS: '1500', WORKER_RECONCILE_INTERVAL_MS: '1000', ...workerEnv },
        gateway: {
          GATEWAY_RECONCILE_INTERVAL_MS: '1000',
          GATEWAY_DISCOVERY_INTERVAL_MS: '250',
          // Beats every 500 ms, so a 2 s window sees the counters of most of it.
          GATEWAY_HEARTBEAT_TTL_MS: '1500',
        },
      },
    ));
    await waitFor(async () => (await this.gateway.post(warm.path, warm.body)).status === 200, {
      timeoutMs: 30_000,
    });
  }

  async stop(): Promise<void> {
    await this.gateway?.stop();
    await this.worker?.stop();
    await this.registry?.stop();
    await this.iso?.dispose().catch(() => undefined);
  }

  /** `modelgate …` against the registry, as the admin. */
  cli(...args: string[]) {
    return runModelgate(args, { registryUrl: this.registry.url, token: ADMIN_TOKEN });
  }

  /** Polls the endpoint's rollout until `done` (events, never time). */
  async until(endpoint: string, done: (view: RolloutView) => boolean): Promise<RolloutView> {
    let last: RolloutView | undefined;
    await waitFor(async () => done((last = await this.registry.admin.getRollout(endpoint))), {
      timeoutMs: 40_000,
      intervalMs: 200,
      describe: () => JSON.stringify(last, null, 1),
    });
    return last!;
  }
}

/** Whether a rollout has ended (completed, rolled back or aborted). */
export const ended = (view: RolloutView): boolean => view.state !== 'PENDING' && view.state !== 'RUNNING';
