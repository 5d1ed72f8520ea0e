/**
 * The models this worker serves, kept in step with the config snapshots it is given.
 *
 * Applying a snapshot is diff-based and idempotent: models of this worker's group that are new
 * (or whose artifact, runtime or batching changed) are loaded — fetched, sha256-verified,
 * sessions created, warmed up — and only then marked READY, replacing any older copy; models
 * that disappeared stop admitting, drain their in-flight requests, and release their sessions.
 */
import { availableParallelism } from 'node:os';
import {
  type ConfigSnapshot,
  type ModelSpec,
  ErrorCode,
  ModelgateError,
  isModelgateError,
} from '@modelgate/contracts';
import { resolveBatchLimits } from '@modelgate/batching';
import { type Logger } from '@modelgate/observability';
import { ModelRunner } from '../serving/model-runner.js';
import { type WorkerMetrics } from '../metrics/worker-metrics.js';
import { type GpuSettings, openWithFallback, planProviderAttempts } from './execution-providers.js';
import { resolveIntraOpThreads } from './intra-op-threads.js';
import { openOnnxSession } from './onnx-session.adapter.js';
import { type ModelState, type ServedModel } from './served-model.js';
import { warmUp } from './warm-up.js';

/** Fetches an artifact into a local, verified file (the model store). */
export interface ArtifactFetcher {
  fetchArtifact(ref: { uri: string; sha256: string }): Promise<{ path: string }>;
}

export interface ModelManagerDeps {
  workerGroup: string;
  gpu: GpuSettings;
  fetcher: ArtifactFetcher;
  metrics: WorkerMetrics;
  logger: Logger;
}

export class ModelManager {
  private readonly models = new Map<string, ServedModel>();
  private appliedRevision: number | undefined;
  private draining = false;

  constructor(private readonly deps: ModelManagerDeps) {}

  /** The snapshot revision last applied, if any. */
  get revision(): number | undefined {
    return this.appliedRevision;
  }

  /** Ready to take traffic: a snapshot applied, nothing still loading, not shutting down. */
  get ready(): boolean {
    if (this.draining || this.appliedRevision === undefined) return false;
    const models = [...this.models.values()];
    if (models.some((model) => model.state === 'LOADING')) return false;
    // Triton's strict readiness: a worker that was given models but serves none of them is not
    // ready (its failures show in ModelReady and status). One given no models has nothing to fail.
    return models.length === 0 || models.some((model) => model.state === 'READY');
  }

  /** True once shutdown began; every new call is refused. */
  get isDraining(): boolean {
    return this.draining;
  }

  /** Each assigned model's state, by id. */
  states(): Record<string, ModelState> {
    return Object.fromEntries([...this.models].map(([id, model]) => [id, model.state]));
  }

  /** The model a request names; without a version, the highest READY version. */
  find(name: string, version?: string): ServedModel | undefined {
    if (version) return this.models.get(`${name}:${version}`);
    const candidates = [...this.models.values()].filter((m) => m.spec.name === name);
    candidates.sort((a, b) => rank(b) - rank(a) || Number(b.spec.version) - Number(a.spec.version));
    return candidates[0];
  }

  /** The model to run a request on, or the error that says why it cannot run. */
  require(name: string, version?: string): ServedModel & { runner: ModelRunner } {
    if (this.draining) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'worker is shutting down');
    const model = this.find(name, version);
    if (!model) {
      throw new ModelgateError(
        ErrorCode.NOT_FOUND,
        `model '${version ? `${name}:${version}` : name}' is not served here`,
      );
    }
    if (model.state !== 'READY' || !model.runner) {
      const why =
        model.state === 'FAILED' ? `failed: ${model.reason ?? 'unknown reason'}` : model.state.toLowerCase();
      throw new ModelgateError(ErrorCode.MODEL_NOT_READY, `model '${model.spec.id}' is not ready (${why})`);
    }
    return model as ServedModel & { runner: ModelRunner };
  }

  /**
   * A model whose onnxruntime session died (a native crash took its thread) stops serving at once:
   * FAILED with the reason, so readiness, ModelReady and the heartbeat tell gateways to route
   * elsewhere, and calls fail fast instead of waiting on a thread that will never answer.
   */
  private loseModel(model: ServedModel, reason: string): void {
    if (model.state !== 'READY') return;
    model.state = 'FAILED';
    model.reason = `onnxruntime session lost: ${reason}`;
    this.deps.metrics.modelReady.set({ model: model.spec.id }, 0);
    this.deps.logger.error({ model: model.spec.id, reason: model.reason }, 'model stopped serving');
  }

  /** Brings the served set in line with `snapshot` (this worker's group only). */
  async applySnapshot(snapshot: ConfigSnapshot): Promise<void> {
    const wanted = new Map(
      snapshot.models.filter((m) => m.workerGroup === this.deps.workerGroup).map((m) => [m.id, m]),
    );
    const loads: Promise<void>[] = [];
    for (const [id, spec] of wanted) {
      const current = this.models.get(id);
      if (!current || needsReload(current.spec, spec)) loads.push(this.load(spec, current));
    }
    const removals = [...this.models.keys()].filter((id) => !wanted.has(id)).map((id) => this.unload(id));
    this.appliedRevision = snapshot.revision;
    await Promise.all([...loads, ...removals]);
  }

  /** Stops admitting everywhere and waits (at most `timeoutMs`) for queued and running requests. */
  async drainAll(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    const runners = [...this.models.values()].flatMap((m) => (m.runner ? [m.runner] : []));
    const drained = Promise.all(runners.map((runner) => runner.drain())).then(() => true);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    const finished = await Promise.race([drained, timedOut]);
    if (!finished) runners.forEach((runner) => runner.close());
    return finished;
  }

  /** Releases every session (after drainAll). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.models.values()].map((model) => releaseSessions(model)));
    this.models.clear();
  }

  private async load(spec: ModelSpec, previous: ServedModel | undefined): Promise<void> {
    const { logger, metrics } = this.deps;
    const model: ServedModel = { spec, state: 'LOADING', sessions: [], inputs: [], outputs: [] };
    if (!previous) this.models.set(spec.id, model);
    metrics.modelReady.set({ model: spec.id }, previous?.state === 'READY' ? 1 : 0);
    try {
      const artifact = await this.deps.fetcher.fetchArtifact(spec.artifact);
      const attempts = planProviderAttempts(spec.runtime.executionProviders, this.deps.gpu);
      const { instances } = spec.runtime;
      const intraOpThreads = resolveIntraOpThreads(
        spec.runtime.intraOpThreads,
        instances,
        availableParallelism(),
      );
      for (let i = 0; i < instances; i++) {
        const opened = await openWithFallback(
          attempts,
          (attempt) => openOnnxSession(artifact.path, attempt, { intraOpThreads }),
          ({ provider, reason }) =>
            logger.warn(
              { model: spec.id, provider, reason },
              `execution provider ${provider} unavailable; falling back`,
            ),
        );
        model.sessions.push(opened.session);
        model.provider = opened.provider;
      }
      const first = model.sessions[0];
      if (!first)
        throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'runtime.instances must be at least 1');
      model.inputs = first.inputs;
      model.outputs = first.outputs;
      const warmUpMs = await warmUp(model.sessions);
      model.runner = new ModelRunner(spec.id, model.sessions, resolveBatchLimits(spec.batching), {
        onBatch: (info) => {
          metrics.batchSize.observe({ model: spec.id }, info.size);
          for (const micros of info.queueMicros)
            metrics.queueDuration.observe({ model: spec.id }, micros / 1e6);
          metrics.queueDepth.set({ model: spec.id }, info.queueDepth);
          metrics.batchTokens.inc({ model: spec.id, kind: 'real' }, info.tokens);
          metrics.batchTokens.inc({ model: spec.id, kind: 'computed' }, info.paddedTokens);
        },
        onComputed: ({ computeSeconds }) =>
          metrics.computeDuration.observe({ model: spec.id }, computeSeconds),
        onSessionLost: (reason) => this.loseModel(model, reason),
      });
      model.state = 'READY';
      this.models.set(spec.id, model);
      metrics.modelReady.set({ model: spec.id }, 1);
      logger.info(
        { model: spec.id, provider: model.provider, warmUpMs: Math.round(warmUpMs) },
        'model ready',
      );
      if (previous) await retire(previous);
    } catch (error) {
      await releaseSessions(model);
      model.state = 'FAILED';
      model.reason = failureReason(error);
      if (!previous) metrics.modelReady.set({ model: spec.id }, 0);
      logger.error({ model: spec.id, reason: model.reason }, 'model failed to load');
      // A failed reload leaves the previous copy serving.
      if (!previous) this.models.set(spec.id, model);
    }
  }

  private async unload(id: string): Promise<void> {
    const model = this.models.get(id);
    if (!model) return;
    await retire(model);
    this.models.delete(id);
    this.deps.metrics.modelReady.remove({ model: id });
    this.deps.logger.info({ model: id }, 'model unloaded');
  }
}

async function retire(model: ServedModel): Promise<void> {
  model.state = 'DRAINING';
  await model.runner?.drain();
  await releaseSessions(model);
}

async function releaseSessions(model: ServedModel): Promise<void> {
  const sessions = model.sessions.splice(0);
  await Promise.all(sessions.map((session) => session.release().catch(() => undefined)));
}

function needsReload(current: ModelSpec, next: ModelSpec): boolean {
  return (
    current.artifact.sha256 !== next.artifact.sha256 ||
    JSON.stringify(current.runtime) !== JSON.stringify(next.runtime) ||
    JSON.stringify(current.batching) !== JSON.stringify(next.batching)
  );
}

function rank(model: ServedModel): number {
  return model.state === 'READY' ? 1 : 0;
}

function failureReason(error: unknown): string {
  if (isModelgateError(error)) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
