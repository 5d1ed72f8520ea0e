import { type NodeReport } from '@modelgate/config-sync';
import { type ConfigSnapshot, parseConfigSnapshot } from '@modelgate/contracts';
import { type Registry } from '@modelgate/observability';
import {
  type LoopDuties,
  type LoopToPrimary,
  type PrimaryToLoop,
  isPrimaryMessage,
} from './loop-messages.js';
import { type Heartbeat } from './node-sync.js';
import { RelayedConfigSource } from './relayed-config-source.js';

/** How an event loop talks to its primary. */
export interface PrimaryLinkOptions {
  /** How long after a failed apply a relayed snapshot is tried again, in ms. */
  readonly retryIntervalMs: number;
  /** How long to wait for the primary's welcome and for a metrics answer, in ms. */
  readonly timeoutMs: number;
  readonly onError: (message: string, error: unknown) => void;
}

/** Sends to the primary; a closed channel (the primary is gone) is not this loop's error. */
function send(message: LoopToPrimary): void {
  if (!process.connected || !process.send) return;
  process.send(message, undefined, undefined, () => undefined);
}

/**
 * An event loop's side of the pod (loop-messages.ts): its config arrives from the primary, its
 * heartbeat goes to the primary, /metrics asks the primary for the pod's aggregate, and it
 * answers the primary's collections from its own registry.
 */
export class PrimaryLink {
  private registry: Registry | undefined;
  private nextRequestId = 0;
  private readonly waiting = new Map<number, (answer: { text?: string; error?: string }) => void>();

  private constructor(
    /** What the primary asked this loop to do besides serving. */
    readonly duties: LoopDuties,
    /** The snapshots the primary relays. */
    readonly source: RelayedConfigSource,
    private readonly options: PrimaryLinkOptions,
  ) {}

  /** Says hello to the primary and resolves with the link once welcomed. */
  static connect(options: PrimaryLinkOptions): Promise<PrimaryLink> {
    return new Promise((resolve, reject) => {
      let link: PrimaryLink | undefined;
      const timer = setTimeout(
        () => reject(new Error(`the cluster primary did not answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      process.on('message', (message: unknown) => {
        if (!isPrimaryMessage(message)) return;
        if (link) return link.handle(message);
        if (message.type !== 'modelgate:welcome') return;
        clearTimeout(timer);
        const initial =
          message.snapshot === undefined ? undefined : parseRelayedSnapshot(message.snapshot, options);
        link = new PrimaryLink(message.duties, new RelayedConfigSource(options, initial), options);
        resolve(link);
      });
      send({ type: 'modelgate:hello' });
    });
  }

  /** Collections from the primary are answered from `registry` from now on (empty before). */
  answerCollectionsFrom(registry: Registry): void {
    this.registry = registry;
  }

  /** The pod's metrics, aggregated by the primary over every event loop (cluster-metrics.ts). */
  metricsText(): Promise<string> {
    const requestId = this.nextRequestId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(requestId);
        reject(new Error(`the cluster primary sent no metrics within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      this.waiting.set(requestId, (answer) => {
        clearTimeout(timer);
        this.waiting.delete(requestId);
        if (answer.text !== undefined) resolve(answer.text);
        else reject(new Error(`aggregating the pod's metrics failed: ${answer.error ?? 'no answer'}`));
      });
      send({ type: 'modelgate:metrics-request', requestId });
    });
  }

  /**
   * This loop's heartbeat: its report goes to the primary (every `intervalMs` and on `beat()`),
   * which merges the loops' reports into the pod's one heartbeat (pod-report.ts).
   */
  reporter(describe: () => NodeReport, intervalMs: number): Heartbeat {
    let timer: NodeJS.Timeout | undefined;
    const report = (): void => send({ type: 'modelgate:report', report: describe() });
    return {
      start: () => {
        report();
        timer = setInterval(report, intervalMs);
        timer.unref();
      },
      beat: () => Promise.resolve(report()),
      stop: () => Promise.resolve(clearInterval(timer)),
    };
  }

  private handle(message: PrimaryToLoop): void {
    switch (message.type) {
      case 'modelgate:welcome':
        return; // once, handled by connect
      case 'modelgate:snapshot': {
        const snapshot = parseRelayedSnapshot(message.snapshot, this.options);
        if (snapshot) this.source.offer(snapshot);
        return;
      }
      case 'modelgate:metrics-collect':
        void this.answerCollection(message.collectionId);
        return;
      case 'modelgate:metrics-text':
        this.waiting.get(message.requestId)?.({
          ...(message.text === undefined ? {} : { text: message.text }),
          ...(message.error === undefined ? {} : { error: message.error }),
        });
        return;
    }
  }

  private async answerCollection(collectionId: number): Promise<void> {
    try {
      const metrics = this.registry ? await this.registry.getMetricsAsJSON() : [];
      send({ type: 'modelgate:metrics-json', collectionId, metrics });
    } catch (error) {
      // No answer: the primary then counts this loop's last counters, never an empty set.
      this.options.onError('collecting this event loop’s metrics failed', error);
    }
  }
}

/** A relayed snapshot, validated again at this boundary; undefined (reported) when invalid. */
function parseRelayedSnapshot(json: unknown, options: PrimaryLinkOptions): ConfigSnapshot | undefined {
  try {
    return parseConfigSnapshot(json);
  } catch (error) {
    options.onError('the primary relayed an invalid config snapshot; ignored', error);
    return undefined;
  }
}
