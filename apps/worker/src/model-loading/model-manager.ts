/**
 * The models this worker serves, kept in step with the config snapshots it is given.
 *
 * Applying a snapshot is diff-based and per model: models of this worker's group that the version
 * policy selects (routed versions, plus the newest or the listed ones) and that are new (or
 * whose artifact, runtime or batching changed, or that failed) are loaded — fetched,
 * sha256-verified, sessions created, warmed up — and only then marked READY, replacing any older
 * copy; models that disappeared or that the policy no longer selects stop admitting, drain their in-flight requests, and release their
 * sessions. A failed load is retried with backoff (load-retry.ts) and given up on with its reason;
 * one that failed because the artifact cache has no space left is retried until space returns.
 * Each model loads on its own: a slow load never holds another model's change, and a later
 * snapshot can replace or remove a model whose load is still under way. A revision counts as
 * applied once every load it asked for has finished: loaded, given up on, or waiting for space.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type ConfigSnapshot,
  type ModelSpec,
  EXECUTION_PROVIDERS,
  ErrorCode,
  ModelgateError,
  selectLoadedVersions,
} from '@modelgate/contracts';
import { type LoadRetryPolicy, loadRetryDelayMs } from '@modelgate/config-sync';
import { isNoSpaceError } from '@modelgate/model-store';
import { modelLabels } from '@modelgate/observability';
import { type GenerationRunner } from '../generation/generation-runner.js';
import { type ModelRunner } from '../serving/model-runner.js';
import { DeferredUnloads } from './deferred-unloads.js';
import { type ModelLoaderDeps, openModel, releaseSessions, retire } from './model-loader.js';
import { failureReason, formatDelay, needsReload } from './reload-decisions.js';
import {
  type ModelState,
  type ServedModel,
  type ServingMethod,
  emptyCopy,
  readiness,
  servingRefusal,
} from './served-model.js';

export { type ArtifactFetcher } from './model-loader.js';

export interface ModelManagerDeps extends ModelLoaderDeps {
  workerGroup: string;
  /** How failed loads are retried. */
  retry: LoadRetryPolicy;
  /**
   * How long a READY version no longer wanted keeps serving before it drains and unloads, in ms
   * (WORKER_UNLOAD_GRACE_MS): gateways still on the previous revision may send it requests
   * meanwhile. 0 unloads at once.
   */
  unloadGraceMs: number;
}

/** A load under way (attempts and the waits between them) of one model. */
interface Loading {
  readonly generation: number;
  readonly spec: ModelSpec;
  /**
   * Settles when the load is over (loaded, given up on, or replaced) or once it waits for space
   * in the cache: its retries go on, but the revision that asked for it counts as applied.
   */
  readonly done: Promise<void>;
  /** Ends a wait between attempts at once (the load was replaced or the worker stops). */
  readonly abort: AbortController;
}

export class ModelManager {
  private readonly models = new Map<string, ServedModel>();
  private readonly loading = new Map<string, Loading>();
  private generation = 0;
  private receivedRevision: number | undefined;
  private appliedRevision: number | undefined;
  private draining = false;

  /** READY versions no longer wanted, serving out their grace period. */
  private readonly deferredUnloads: DeferredUnloads;
  /** The ids the latest snapshot wants: a deferred unload whose model is wanted again does nothing. */
  private wantedIds = new Set<string>();

  constructor(private readonly deps: ModelManagerDeps) {
    this.deferredUnloads = new DeferredUnloads(deps.unloadGraceMs);
  }

  /** The newest snapshot revision whose loads have all finished (loaded, given up on, or waiting for space), if any. */
  get revision(): number | undefined {
    return this.appliedRevision;
  }

  /** Ready to take traffic: a snapshot received, nothing loading for the first time, not shutting down. */
  get ready(): boolean {
    if (this.draining || this.receivedRevision === undefined) return false;
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

  /** Requests waiting in each serving model's batcher, by id. */
  queueDepths(): Array<readonly [string, number]> {
    return [...this.models].flatMap(([id, model]) =>
      model.runner ? [[id, model.runner.queueDepth] as const] : [],
    );
  }

  /** Running and waiting sequences of each serving text-generation model, by id. */
  generationLoads(): Array<{ id: string; running: number; waiting: number }> {
    return [...this.models].flatMap(([id, model]) =>
      model.generator ? [{ id, running: model.generator.running, waiting: model.generator.waiting }] : [],
    );
  }

  /** Why each FAILED model failed, and why a serving model's reload failed, by id (others left out). */
  failureReasons(): Record<string, string> {
    return Object.fromEntries(
      [...this.models].flatMap(([id, model]) =>
        model.state === 'FAILED'
          ? [[id, model.reason ?? 'unknown reason']]
          : model.reloadFailure !== undefined
            ? [[id, `reload failed, the previous copy still serves: ${model.reloadFailure}`]]
            : [],
      ),
    );
  }

  /** The model a request names; without a version, the highest READY version. */
  find(name: string, version?: string): ServedModel | undefined {
    if (version) return this.models.get(`${name}:${version}`);
    const candidates = [...this.models.values()].filter((m) => m.spec.name === name);
    candidates.sort((a, b) => readiness(b) - readiness(a) || Number(b.spec.version) - Number(a.spec.version));
    return candidates[0];
  }

  /** The encoder model to run a ModelInfer on, or the error that says why it cannot run. */
  require(name: string, version?: string): ServedModel & { runner: ModelRunner } {
    return this.requireFor('ModelInfer', name, version) as ServedModel & { runner: ModelRunner };
  }

  /** The text-generation model to run a ModelGenerate on, or the error that says why it cannot run. */
  requireGenerator(name: string, version?: string): ServedModel & { generator: GenerationRunner } {
    return this.requireFor('ModelGenerate', name, version) as ServedModel & { generator: GenerationRunner };
  }

  private requireFor(method: ServingMethod, name: string, version?: string): ServedModel {
    if (this.draining) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'worker is shutting down');
    const model = this.find(name, version);
    if (!model) {
      throw new ModelgateError(
        ErrorCode.NOT_FOUND,
        `model '${version ? `${name}:${version}` : name}' is not served here`,
      );
    }
    const refusal = servingRefusal(model, method);
    if (refusal) throw refusal;
    return model;
  }

  /**
   * A model whose onnxruntime session died (a native crash took its thread) stops serving at once:
   * FAILED with the reason, so readiness, ModelReady and the heartbeat tell gateways to route
   * elsewhere, and calls fail fast instead of waiting on a thread that will never answer.
   */
  private loseModel(model: ServedModel, reason: string): void {
    if (model.state !== 'READY' || this.models.get(model.spec.id) !== model) return;
    model.state = 'FAILED';
    model.reason = `onnxruntime session lost: ${reason}`;
    this.deps.metrics.modelReady.set(modelLabels(model.spec.id), 0);
    this.deps.logger.error({ model: model.spec.id, reason: model.reason }, 'model stopped serving');
  }

  /**
   * Brings the served set in line with `snapshot` (this worker's group only). Resolves once every
   * load this revision asked for has finished; loads and unloads of other models go on meanwhile.
   */
  async applySnapshot(snapshot: ConfigSnapshot): Promise<void> {
    if (this.draining) return; // a snapshot arriving during shutdown loads nothing
    this.receivedRevision = Math.max(snapshot.revision, this.receivedRevision ?? snapshot.revision);
    // The version policy picks which READY versions load; the others stop admitting, drain, unload.
    const selected = selectLoadedVersions(snapshot);
    const wanted = new Map(
      snapshot.models
        .filter((m) => m.workerGroup === this.deps.workerGroup && selected.has(m.id))
        .map((m) => [m.id, m]),
    );
    this.wantedIds = new Set(wanted.keys());
    const loads: Promise<void>[] = [];
    for (const [id, spec] of wanted) {
      this.deferredUnloads.cancel(id);
      const underway = this.loading.get(id);
      if (underway && !needsReload(underway.spec, spec)) {
        loads.push(underway.done);
        continue;
      }
      const current = this.models.get(id);
      // A model that failed (given up on, or its session lost) is tried again by each new revision.
      if (underway || !current || current.state === 'FAILED' || needsReload(current.spec, spec)) {
        loads.push(this.startLoad(spec));
      } else {
        delete current.reloadFailure; // the spec is back to the one serving: no reload is wanted
      }
    }
    const unwanted = new Set([...this.models.keys(), ...this.loading.keys()].filter((id) => !wanted.has(id)));
    const removals = [...unwanted].flatMap((id) => {
      // A serving copy serves out its grace period; anything else (loading, failed) goes at once.
      if (this.deferredUnloads.deferring && !this.loading.has(id) && this.models.get(id)?.state === 'READY') {
        this.deferredUnloads.defer(id, () => {
          if (!this.draining && !this.wantedIds.has(id)) void this.unload(id).catch(() => undefined);
        });
        return [];
      }
      return [this.unload(id)];
    });
    await Promise.all([...loads, ...removals]);
    if (this.appliedRevision === undefined || snapshot.revision > this.appliedRevision) {
      this.appliedRevision = snapshot.revision;
    }
  }

  /** Stops admitting everywhere and waits (at most `timeoutMs`) for queued and running requests. */
  async drainAll(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    this.deferredUnloads.cancelAll();
    for (const id of [...this.loading.keys()]) this.cancelLoad(id);
    const runners = [...this.models.values()].flatMap((m) => [
      ...(m.runner ? [m.runner] : []),
      ...(m.generator ? [m.generator] : []),
    ]);
    const drained = Promise.all(runners.map((runner) => runner.drain())).then(() => true);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs).unref());
    const finished = await Promise.race([drained, timedOut]);
    if (!finished) runners.forEach((runner) => runner.close());
    return finished;
  }

  /** Releases every session (after drainAll). */
  async releaseAll(): Promise<void> {
    for (const id of [...this.loading.keys()]) this.cancelLoad(id);
    await Promise.all([...this.models.values()].map((model) => releaseSessions(model)));
    this.models.clear();
  }

  /** Starts loading `spec`, replacing any load of the same model still under way. */
  private startLoad(spec: ModelSpec): Promise<void> {
    this.cancelLoad(spec.id);
    const generation = ++this.generation;
    const abort = new AbortController();
    let waitingForSpace!: () => void;
    const waiting = new Promise<void>((resolve) => (waitingForSpace = resolve));
    const run = this.loadWithRetry(spec, generation, abort.signal, waitingForSpace).finally(() => {
      if (this.loading.get(spec.id)?.generation === generation) this.loading.delete(spec.id);
    });
    const done = Promise.race([run, waiting]);
    this.loading.set(spec.id, { generation, spec, done, abort });
    return done;
  }

  private cancelLoad(id: string): void {
    const underway = this.loading.get(id);
    if (!underway) return;
    this.loading.delete(id);
    underway.abort.abort();
  }

  /** True while load `generation` of model `id` is still the one wanted. */
  private isCurrent(id: string, generation: number): boolean {
    return !this.draining && this.loading.get(id)?.generation === generation;
  }

  /** Loads `spec` until it serves, is given up on or replaced; `waitingForSpace` once its cache is full. */
  private async loadWithRetry(
    spec: ModelSpec,
    generation: number,
    signal: AbortSignal,
    waitingForSpace: () => void,
  ): Promise<void> {
    const { logger, metrics } = this.deps;
    if (!this.models.has(spec.id)) {
      this.models.set(spec.id, emptyCopy(spec));
      metrics.modelReady.set(modelLabels(spec.id), 0);
    }
    for (let attempt = 1; ; attempt++) {
      try {
        const loaded = await openModel(spec, this.deps, (model, reason) => this.loseModel(model, reason));
        if (!this.isCurrent(spec.id, generation)) {
          await releaseSessions(loaded); // replaced or removed meanwhile
          return;
        }
        const previous = this.models.get(spec.id);
        this.models.set(spec.id, loaded);
        metrics.modelReady.set(modelLabels(spec.id), 1);
        this.reportProvider(spec, loaded.providers);
        if (previous?.runner || previous?.generator) await retire(previous);
        return;
      } catch (error) {
        if (!this.isCurrent(spec.id, generation)) return;
        const kind = isNoSpaceError(error) ? 'no-space' : 'ordinary';
        const delayMs = loadRetryDelayMs(attempt, this.deps.retry, kind);
        const reason = failureReason(error);
        const current = this.models.get(spec.id);
        const serving = current?.state === 'READY';
        logger.error(
          { model: spec.id, attempt, retryInMs: delayMs ?? null, reason, kind, previousServing: serving },
          delayMs === undefined ? 'model failed to load; giving up' : 'model failed to load; retrying',
        );
        // A failed reload leaves the previous copy serving, saying so; otherwise the failure shows,
        // with when the next attempt comes or that there will be none.
        const when =
          delayMs === undefined
            ? `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`
            : kind === 'no-space'
              ? `attempt ${attempt}; retrying in ${formatDelay(delayMs)}, and until space returns`
              : `attempt ${attempt} of ${this.deps.retry.maxAttempts}; retrying in ${formatDelay(delayMs)}`;
        if (serving) current.reloadFailure = `${reason} (${when})`;
        else {
          this.models.set(spec.id, { ...emptyCopy(spec), state: 'FAILED', reason: `${reason} (${when})` });
          metrics.modelReady.set(modelLabels(spec.id), 0);
          // A copy whose session thread died still holds its other sessions: release them.
          if (current?.runner || current?.generator || current?.sessions.length)
            void retire(current).catch(() => undefined);
        }
        if (delayMs === undefined) return;
        if (kind === 'no-space') waitingForSpace();
        try {
          await sleep(delayMs, undefined, { signal });
        } catch {
          return; // aborted: replaced, removed, or the worker stops
        }
        if (!this.isCurrent(spec.id, generation)) return;
        // The next attempt is running now: say so instead of the wait that just ended.
        const now =
          kind === 'no-space'
            ? `attempt ${attempt + 1} running, retried until space returns`
            : `attempt ${attempt + 1} of ${this.deps.retry.maxAttempts} running`;
        const shown = this.models.get(spec.id);
        if (shown?.state === 'FAILED') shown.reason = `${reason} (${now})`;
        else if (shown?.reloadFailure !== undefined) shown.reloadFailure = `${reason} (${now})`;
      }
    }
  }

  /**
   * modelgate_model_execution_provider: the serving copy's instances on each provider it runs on,
   * nothing once unloaded.
   */
  private reportProvider(spec: ModelSpec, providers: ReadonlyMap<string, number> | undefined): void {
    const gauge = this.deps.metrics.executionProvider;
    for (const name of EXECUTION_PROVIDERS) gauge.remove({ ...modelLabels(spec.id), provider: name });
    for (const [provider, instances] of providers ?? []) {
      gauge.set({ ...modelLabels(spec.id), provider }, instances);
    }
  }

  private async unload(id: string): Promise<void> {
    this.cancelLoad(id);
    const model = this.models.get(id);
    if (!model) return;
    this.models.delete(id);
    await retire(model);
    this.deps.metrics.modelReady.remove(modelLabels(model.spec.id));
    this.reportProvider(model.spec, undefined);
    this.deps.logger.info({ model: id }, 'model unloaded');
  }
}
