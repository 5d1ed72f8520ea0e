/**
 * Opens one copy of a model: fetch and verify its artifact (and external data), create its sessions (falling back
 * through the execution providers), warm them up and put a batching runner in front. Either the
 * copy comes back READY or the attempt throws with nothing left open.
 */
import {
  type ModelSpec,
  ErrorCode,
  ModelgateError,
  decoderBatchSizeProblem,
  decoderMaxBatchSize,
  effectiveMaxBatchSize,
  encoderBatchingProblems,
  isGenerativeTask,
} from '@modelgate/contracts';
import { resolveBatchLimits } from '@modelgate/batching';
import { type Logger, modelLabels } from '@modelgate/observability';
import { type WorkerMetrics } from '../metrics/worker-metrics.js';
import { ModelRunner } from '../serving/model-runner.js';
import { PIXEL_VALUES, decoderLayoutOf } from '../generation/decoder-layout.js';
import { type PrefillChunking } from '@modelgate/generation';
import { GenerationRunner, generationLimitsOf } from '../generation/generation-runner.js';
import {
  type ExecutionProviderName,
  type GpuSettings,
  type ProviderAttempt,
  countProviders,
  describeProviders,
  openWithFallback,
  planProviderAttempts,
} from './execution-providers.js';
import { resolveInlineThreads, resolveIntraOpThreads, resolveSoloThreads } from '@modelgate/session-settings';
import { resolveImageDims } from './image-input.js';
import { type OnnxSession, type TensorDeclaration, openOnnxSession } from './onnx-session.adapter.js';
import { openInlineSession } from './onnx-session.inline.js';
import { type ServedModel } from './served-model.js';
import { timeWarmRun, warmUp, warmUpDecoder } from './warm-up.js';

/**
 * Fetches a model's files into local, verified files (the model store) and answers the paths
 * onnxruntime opens: the model file, with its ONNX external data files beside it under the names
 * the graph records, and an image-to-text model's encoder (`encoderPath`, set iff `encoder` is).
 */
export interface ArtifactFetcher {
  fetchModel(
    files: Pick<ModelSpec, 'artifact' | 'externalData' | 'encoder'>,
  ): Promise<{ path: string; encoderPath?: string }>;
}

export interface ModelLoaderDeps {
  gpu: GpuSettings;
  /** Whether an encoder model whose instances share the CPU cores gets a solo session (WORKER_SOLO_SESSION). */
  soloSession: boolean;
  /** Whether the solo session's threads spin within a run (WORKER_SOLO_SPINNING). */
  soloSpinning: boolean;
  /**
   * Inline execution (WORKER_INLINE, WORKER_INLINE_MAX_MS): the solo session of a CPU encoder model
   * opens on the event-loop thread, for every instance count, and runs the lone batches expected to
   * take at most `maxMicros` there (libs/batching execution-path.ts).
   */
  inline: { enabled: boolean; maxMicros: number; spinAfterRuns?: boolean };
  /** How generation slices long prompts (WORKER_PREFILL_CHUNK_TOKENS). */
  prefillChunking?: PrefillChunking;
  /** Cores this process may run on (os.availableParallelism()), shared among a model's instances. */
  cores: number;
  fetcher: ArtifactFetcher;
  metrics: WorkerMetrics;
  logger: Logger;
}

/** A READY copy of `spec`; `onSessionLost` hears of a session thread that died under it. */
export async function openModel(
  spec: ModelSpec,
  deps: ModelLoaderDeps,
  onSessionLost: (model: ServedModel, reason: string) => void,
): Promise<ServedModel> {
  const { logger, metrics } = deps;
  const model: ServedModel = { spec, state: 'LOADING', sessions: [], inputs: [], outputs: [] };
  const startedMs = performance.now();
  const loadSeconds = () => (performance.now() - startedMs) / 1000;
  const series = modelLabels(spec.id);
  try {
    const artifact = await deps.fetcher.fetchModel(spec);
    const attempts = planProviderAttempts(spec.runtime.executionProviders, deps.gpu);
    const { instances } = spec.runtime;
    const { cores } = deps;
    const intraOpThreads = resolveIntraOpThreads(spec.runtime.intraOpThreads, instances, cores);
    const opened: ExecutionProviderName[] = [];
    for (let i = 0; i < instances; i++) {
      const session = await openWithFallback(
        attempts,
        (attempt) => openOnnxSession(artifact.path, attempt, { intraOpThreads }, artifact.encoderPath),
        ({ provider, reason }) =>
          logger.warn(
            { model: spec.id, provider, reason },
            `execution provider ${provider} unavailable; falling back`,
          ),
      );
      model.sessions.push(session.session);
      opened.push(session.provider);
    }
    const providers = (model.providers = countProviders(opened));
    if (providers.size > 1) {
      logger.warn(
        { model: spec.id, providers: describeProviders(providers) },
        'instances of the model run on different execution providers (one fell back where another did not)',
      );
    }
    const first = model.sessions[0];
    if (!first) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'runtime.instances must be at least 1');
    model.inputs = first.inputs;
    model.outputs = first.outputs;
    // Only where every instance runs on the CPU: a lone request must not leave a GPU instance idle.
    const onCpuOnly = providers.size === 1 && providers.has('cpu');
    let soloThreads = resolveSoloThreads(spec.runtime.intraOpThreads, instances, cores);
    if (deps.soloSession && onCpuOnly && !isGenerativeTask(spec.task)) {
      if (deps.inline.enabled) {
        const inlineThreads = resolveInlineThreads(spec.runtime.intraOpThreads, cores);
        const solo = {
          threads: inlineThreads,
          spin: deps.soloSpinning,
          spinAfterRuns: deps.inline.spinAfterRuns === true,
          inline: true,
        };
        model.soloSession = await openSoloSession(artifact.path, attempts, solo, spec.id, logger);
        if (model.soloSession) soloThreads = inlineThreads;
      }
      if (!model.soloSession && soloThreads > 0) {
        const solo = { threads: soloThreads, spin: deps.soloSpinning, spinAfterRuns: false, inline: false };
        model.soloSession = await openSoloSession(artifact.path, attempts, solo, spec.id, logger);
      }
    }
    const warmUpMs = isGenerativeTask(spec.task)
      ? await startGenerator(model, metrics, logger, onSessionLost, deps.prefillChunking)
      : await startBatcher(model, deps, onSessionLost);
    model.state = 'READY';
    metrics.modelLoadDuration.observe({ ...series, outcome: 'loaded' }, loadSeconds());
    const threads = {
      intraOpThreads,
      soloThreads: model.soloSession ? soloThreads : 0,
      soloInline: model.soloSession?.runsInline === true,
    };
    logger.info(
      { model: spec.id, provider: describeProviders(providers), ...threads, warmUpMs: Math.round(warmUpMs) },
      'model ready',
    );
    return model;
  } catch (error) {
    metrics.modelLoadDuration.observe({ ...series, outcome: 'failed' }, loadSeconds());
    await releaseSessions(model);
    throw error;
  }
}

/**
 * The solo session, or undefined when it cannot be opened: it only speeds up lone requests, so the
 * model serves on its instances without it (a warning says why).
 */
async function openSoloSession(
  path: string,
  attempts: readonly ProviderAttempt[],
  solo: { threads: number; spin: boolean; spinAfterRuns: boolean; inline: boolean },
  modelId: string,
  logger: Logger,
): Promise<OnnxSession | undefined> {
  const cpu = attempts.find((attempt) => attempt.provider === 'cpu');
  if (!cpu) return undefined;
  // It runs only while nothing else computes, so its threads may spin within a run (session-options.ts).
  const settings = {
    intraOpThreads: solo.threads,
    spinWithinRuns: solo.spin,
    spinAfterRuns: solo.spinAfterRuns,
  };
  try {
    return solo.inline
      ? await openInlineSession(path, cpu, settings)
      : await openOnnxSession(path, cpu, settings);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    logger.warn(
      { model: modelId, reason },
      solo.inline
        ? 'the inline session could not be opened; lone requests go to a session thread'
        : 'the solo session could not be opened; serving on the instances alone',
    );
    return undefined;
  }
}

/** Warms an encoder's sessions up and puts the dynamic batcher in front; returns the warm-up ms. */
async function startBatcher(
  model: ServedModel,
  deps: Pick<ModelLoaderDeps, 'metrics' | 'inline'>,
  onSessionLost: (model: ServedModel, reason: string) => void,
): Promise<number> {
  const { spec } = model;
  const { metrics } = deps;
  const series = modelLabels(spec.id);
  const solo = model.soloSession ? [model.soloSession] : [];
  // A spec from WORKER_CONFIG_FILE reaches no preparation: the same refusals as the registry's.
  const problems = encoderBatchingProblems(spec.batching, model.inputs);
  if (problems.length > 0) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, problems.join('; '));
  const imageDims = imageDimsOf(model.inputs, spec);
  const warmUpMs = await warmUp([...model.sessions, ...solo], imageDims);
  // Seeds the solo session's run-time estimate, which decides what may run inline.
  const calibration = model.soloSession ? await timeWarmRun(model.soloSession, imageDims) : undefined;
  // A graph with a fixed batch takes no more rows than it: the default maxBatchSize means that many.
  const maxBatchSize = effectiveMaxBatchSize(spec.batching.maxBatchSize, model.inputs);
  const limits = resolveBatchLimits({ ...spec.batching, maxBatchSize });
  model.runner = new ModelRunner(
    spec.id,
    model.sessions,
    limits,
    {
      onBatch: (info) => {
        metrics.batchSize.observe(series, info.size);
        for (const micros of info.queueMicros) metrics.queueDuration.observe(series, micros / 1e6);
        metrics.batchTokens.inc({ ...series, kind: 'real' }, info.tokens);
        metrics.batchTokens.inc({ ...series, kind: 'computed' }, info.paddedTokens);
      },
      onComputed: ({ rows, computeSeconds, path }) => {
        metrics.computeDuration.observe(series, computeSeconds);
        metrics.executionPathRows.inc({ ...series, path }, rows);
        if (path !== 'instance') metrics.soloBatches.inc(series);
      },
      onSessionLost: (reason) => onSessionLost(model, reason),
    },
    model.soloSession
      ? { session: model.soloSession, inline: { maxInlineMicros: deps.inline.maxMicros }, calibration }
      : undefined,
  );
  return warmUpMs;
}

/**
 * A decoder with past: its layout from the graph's cache inputs, a prefill + decode-step warm-up,
 * and the generation runner in front of the sessions' decode loops; returns the warm-up ms.
 */
async function startGenerator(
  model: ServedModel,
  metrics: WorkerMetrics,
  logger: Logger,
  onSessionLost: (model: ServedModel, reason: string) => void,
  chunking: PrefillChunking | undefined,
): Promise<number> {
  const { spec } = model;
  const series = modelLabels(spec.id);
  const encoder = model.sessions[0]?.encoder;
  if (spec.task === 'image-to-text' && encoder === undefined)
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'an image-to-text model needs its image encoder (ModelSpec.encoder)',
    );
  const layout = decoderLayoutOf(model.inputs, model.outputs, encoder);
  if (typeof layout === 'string') throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, layout);
  if (encoder) model.imageDims = imageDimsOf(encoder.inputs, spec);
  // A spec from WORKER_CONFIG_FILE reaches no preparation: the same refusal as the registry's.
  const batchSizeProblem = decoderBatchSizeProblem(spec.batching.maxBatchSize, model.inputs);
  if (batchSizeProblem !== undefined) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, batchSizeProblem);
  if (!layout.hasPositionIds && spec.batching.maxBatchSize === undefined) {
    logger.info(
      { model: spec.id },
      'the decoder takes no position_ids: it numbers positions from the padded cache, so its sequences decode one at a time (maxBatchSize left out means 1)',
    );
  }
  if (spec.generation === undefined) {
    logger.warn(
      { model: spec.id },
      "the model's positions are unknown (prepared before they were recorded; prepare it again): prompt + max_new_tokens is not checked against them",
    );
  }
  const warmUpMs = await warmUpDecoder(model.sessions, layout, model.imageDims);
  const maxBatchSize = decoderMaxBatchSize(spec.batching.maxBatchSize, model.inputs);
  const limits = generationLimitsOf({ ...spec.batching, maxBatchSize }, spec.generation);
  model.generator = new GenerationRunner(
    spec.id,
    model.sessions,
    layout,
    limits,
    {
      // phase: 'encode' (image-to-text: the image encoder on joiners' images), 'prefill' or 'decode'.
      onStep: (phase, sequences, seconds) => {
        metrics.generationStepDuration.observe({ ...series, phase }, seconds);
        if (phase === 'decode') metrics.generationStepSize.observe(series, sequences);
      },
      onTokens: (count) => metrics.generatedTokens.inc(series, count),
      onSessionLost: (reason) => onSessionLost(model, reason),
    },
    chunking,
  );
  return warmUpMs;
}

/**
 * [C, H, W] of the graph's `pixel_values` (dynamic dims from the image processor's size), or
 * undefined when it takes none; throws when the graph and the image processor disagree.
 */
function imageDimsOf(inputs: readonly TensorDeclaration[], spec: ModelSpec): number[] | undefined {
  const pixels = inputs.find((input) => input.name === PIXEL_VALUES);
  if (pixels === undefined || pixels.dims.length !== 4) return undefined;
  const dims = resolveImageDims(pixels.dims, spec.image);
  if (typeof dims === 'string') throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, dims);
  return dims;
}

/** Stops admitting, finishes what the copy holds, and releases its sessions. */
export async function retire(model: ServedModel): Promise<void> {
  model.state = 'DRAINING';
  await model.runner?.drain();
  await model.generator?.drain();
  await releaseSessions(model);
}

/** Releases a copy's sessions (errors ignored: the session is going anyway). */
export async function releaseSessions(model: ServedModel): Promise<void> {
  const sessions = model.sessions.splice(0);
  if (model.soloSession) sessions.push(model.soloSession);
  model.soloSession = undefined;
  await Promise.all(sessions.map((session) => session.release().catch(() => undefined)));
}
