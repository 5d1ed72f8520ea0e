import { type ModelSpec } from '@modelgate/contracts';
import { type HeartbeatReader, readyWorkersByModel } from '@modelgate/config-sync';
import { type InferenceClient } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';

/** The worker group name discovery uses for one model. */
export function discoveredGroup(modelId: string): string {
  return `model:${modelId}`;
}

/**
 * Chooses workers for each model from worker heartbeats that say the model is READY
 * (DESIGN §3.4.3), refreshed on an interval. A worker that stops heart-beating drops out when
 * its heartbeat expires; while Redis is unreachable, or has just restarted without any
 * heartbeat, the last known workers stay in use.
 */
export class WorkerDiscovery {
  private timer: NodeJS.Timeout | undefined;
  private known = new Set<string>();

  constructor(
    private readonly reader: HeartbeatReader,
    private readonly client: InferenceClient,
    private readonly intervalMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.reader.close();
  }

  /**
   * Reads the heartbeats now, waiting at most `timeoutMs`: before a new revision's routes go live,
   * so a version the workers announced READY before it was routed to is known to serve it (the
   * timer alone left up to one interval in which such a route answered 503 "no worker can serve").
   * A read that takes longer goes on and lands when it lands; the revision does not wait for it.
   */
  async refreshWithin(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.refresh(), waited]);
    clearTimeout(timer);
  }

  /** Reads the heartbeats once and updates the client's per-model worker lists. */
  async refresh(): Promise<void> {
    let byModel: Map<string, string[]>;
    try {
      byModel = readyWorkersByModel(await this.reader.read());
    } catch (error) {
      this.logger.warn({ err: error }, 'reading worker heartbeats failed; keeping the known workers');
      return;
    }
    if (byModel.size === 0 && this.known.size > 0) {
      // No worker heartbeat at all: Redis most likely restarted empty (it keeps nothing on disk)
      // and workers re-beat within a third of their TTL. Keep the known workers meanwhile; if
      // they really are gone, calls to them fail over and the client ejects them.
      return;
    }
    const next = new Set<string>();
    for (const [model, addresses] of byModel) {
      const group = discoveredGroup(model);
      next.add(group);
      this.client.setWorkerGroup(group, addresses);
    }
    for (const group of this.known) if (!next.has(group)) this.client.setWorkerGroup(group, []);
    this.known = next;
  }
}

/**
 * The worker group a model's calls go to: its discovered workers when discovery knows any,
 * else the snapshot's static group.
 */
export function workerGroupFor(client: InferenceClient, spec: ModelSpec): string {
  const discovered = discoveredGroup(spec.id);
  return client.addressesOf(discovered).length > 0 ? discovered : spec.workerGroup;
}
