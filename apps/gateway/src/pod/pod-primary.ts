import cluster, { type Worker } from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { type ConfigSource } from '@modelgate/config-sync';
import { type ConfigSnapshot } from '@modelgate/contracts';
import {
  LATENCY_BUCKETS_SECONDS,
  type Logger,
  type MetricsJson,
  createLogger,
} from '@modelgate/observability';
import { type GatewayConfig } from '../gateway.config.js';
import { ClusterMetrics } from './cluster-metrics.js';
import { type LoopToPrimary, type PrimaryToLoop, isLoopMessage } from './loop-messages.js';
import {
  type Heartbeat,
  createGatewayConfigSource,
  createGatewayHeartbeat,
  gatewayIdentity,
} from './node-sync.js';
import { PodReport } from './pod-report.js';

/** How long one metrics collection waits for every loop, in ms; a late loop counts with its last counters. */
const COLLECTION_TIMEOUT_MS = 3000;
/** How long stopping the config source and withdrawing the heartbeat may take at exit, in ms. */
const STOP_TIMEOUT_MS = 3000;

/** A metrics collection under way: each loop answers or is gone. */
interface Collection {
  answered(loop: number, metrics: MetricsJson): void;
  gone(loop: number): void;
}

/** Sends to a loop; a loop that just died is not the primary's error (its exit is handled). */
function sendTo(worker: Worker, message: PrimaryToLoop): void {
  if (worker.isConnected()) worker.send(message, undefined, () => undefined);
}

/**
 * The cluster primary of a gateway pod with several event loops (GATEWAY_WORKERS > 1). It forks
 * the loops and restarts one that dies; it alone follows the config source and relays every
 * snapshot to every loop (a loop forked later is welcomed with the one in force); it heartbeats
 * once for the pod with the loops' reports merged (pod-report.ts); it answers a loop's /metrics
 * with every loop's registry aggregated (cluster-metrics.ts); and it gives exactly one live loop
 * the BullMQ async-inference consumer. A termination signal is forwarded to every loop, each of
 * which shuts down gracefully on its own; the primary stops following and withdraws the heartbeat
 * once all have exited, then exits. A second signal kills the loops at once.
 */
export class PodPrimary {
  private readonly logger: Logger;
  private readonly report: PodReport;
  private readonly metrics = new ClusterMetrics();
  private readonly source: ConfigSource;
  private readonly heartbeat: Heartbeat | undefined;
  /** Loops that said hello, by cluster worker id. */
  private readonly welcomed = new Map<number, Worker>();
  private readonly collections = new Map<number, Collection>();
  private nextCollectionId = 0;
  private asyncConsumer: number | undefined;
  private latest: ConfigSnapshot | undefined;
  private stopping = false;

  constructor(
    config: GatewayConfig,
    private readonly loops: number,
  ) {
    this.logger = createLogger({ app: 'gateway', level: config.GATEWAY_LOG_LEVEL });
    const onError = (message: string, error: unknown): void => this.logger.warn({ err: error }, message);
    this.report = new PodReport(
      gatewayIdentity(config),
      `${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`,
      LATENCY_BUCKETS_SECONDS,
    );
    this.source = createGatewayConfigSource(config, onError);
    this.heartbeat = createGatewayHeartbeat(config, () => this.report.describe(), onError);
  }

  /** Forks the loops, then follows the config and heartbeats until the loops are told to stop. */
  start(): void {
    cluster.on('message', (worker, message: unknown) => {
      if (isLoopMessage(message)) this.onMessage(worker, message);
    });
    cluster.on('exit', (worker, code) => this.onExit(worker, code));
    for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => this.onSignal(signal));
    for (let i = 0; i < this.loops; i++) cluster.fork();
    this.heartbeat?.start();
    this.source
      .start((snapshot) => Promise.resolve(this.relay(snapshot)))
      .catch((error: unknown) => this.logger.error({ err: error }, 'config source failed'));
    this.logger.info({ loops: this.loops, pid: process.pid }, 'gateway primary forked its event loops');
  }

  /** Keeps `snapshot` as the one in force and sends it to every welcomed loop. */
  private relay(snapshot: ConfigSnapshot): void {
    this.latest = snapshot;
    for (const worker of this.welcomed.values()) sendTo(worker, { type: 'modelgate:snapshot', snapshot });
  }

  private onMessage(worker: Worker, message: LoopToPrimary): void {
    switch (message.type) {
      case 'modelgate:hello': {
        const asyncConsumer = this.asyncConsumer === undefined;
        if (asyncConsumer) this.asyncConsumer = worker.id;
        this.welcomed.set(worker.id, worker);
        sendTo(worker, {
          type: 'modelgate:welcome',
          duties: { asyncConsumer },
          ...(this.latest === undefined ? {} : { snapshot: this.latest }),
        });
        return;
      }
      case 'modelgate:report':
        // Beat at once when the pod's revision moved, as a lone gateway does after applying one.
        if (this.report.record(worker.id, message.report)) void this.heartbeat?.beat();
        return;
      case 'modelgate:metrics-request':
        this.collect().then(
          (text) => sendTo(worker, { type: 'modelgate:metrics-text', requestId: message.requestId, text }),
          (error: unknown) => {
            this.logger.error({ err: error }, 'aggregating the event loops’ metrics failed');
            sendTo(worker, {
              type: 'modelgate:metrics-text',
              requestId: message.requestId,
              error: error instanceof Error ? error.message : String(error),
            });
          },
        );
        return;
      case 'modelgate:metrics-json':
        this.collections.get(message.collectionId)?.answered(worker.id, message.metrics);
        return;
    }
  }

  /** Asks every welcomed loop for its metrics and aggregates what came back in time. */
  private async collect(): Promise<string> {
    const collectionId = this.nextCollectionId++;
    const fresh = new Set<number>();
    const pending = new Set<number>();
    await new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.collections.delete(collectionId);
        resolve();
      };
      const settle = (loop: number): void => {
        pending.delete(loop);
        if (pending.size === 0) finish();
      };
      const timer = setTimeout(finish, COLLECTION_TIMEOUT_MS);
      this.collections.set(collectionId, {
        answered: (loop, metrics) => {
          if (!pending.has(loop)) return;
          this.metrics.record(loop, metrics);
          fresh.add(loop);
          settle(loop);
        },
        gone: (loop) => {
          if (pending.has(loop)) settle(loop);
        },
      });
      for (const [loop, worker] of this.welcomed) {
        if (!worker.isConnected()) continue;
        pending.add(loop);
        sendTo(worker, { type: 'modelgate:metrics-collect', collectionId });
      }
      if (pending.size === 0) finish();
    });
    return this.metrics.text(fresh);
  }

  private onExit(worker: Worker, code: number): void {
    this.welcomed.delete(worker.id);
    this.report.retire(worker.id);
    this.metrics.retire(worker.id);
    for (const collection of this.collections.values()) collection.gone(worker.id);
    if (this.asyncConsumer === worker.id) this.asyncConsumer = undefined; // the next hello takes it
    if (!this.stopping) {
      this.logger.error({ pid: worker.process.pid, code }, 'gateway event loop exited; restarting it');
      cluster.fork();
    } else if (Object.values(cluster.workers ?? {}).every((loop) => loop === undefined || loop.isDead())) {
      // Not `cluster.workers` being empty: Node removes an exited loop from it only once its IPC
      // channel has closed too, which may come after this 'exit' event.
      void this.exit();
    }
  }

  private onSignal(signal: NodeJS.Signals): void {
    const forwarded = this.stopping ? 'SIGKILL' : signal;
    this.stopping = true;
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(forwarded);
  }

  /** Every loop has exited: stop following, withdraw the pod's heartbeat (bounded), exit. */
  private async exit(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([this.source.stop(), this.heartbeat?.stop()]),
      new Promise((resolve) => (timer = setTimeout(resolve, STOP_TIMEOUT_MS))),
    ]);
    clearTimeout(timer);
    process.exit(0);
  }
}
