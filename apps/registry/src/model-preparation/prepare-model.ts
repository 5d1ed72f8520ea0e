import {
  type ArtifactRef,
  decoderBatchSizeProblem,
  type EncoderBatchingSettings,
  encoderBatchingProblems,
  ErrorCode,
  type ExternalDataRef,
  hasLabels,
  isGenerativeTask,
  isModelgateError,
  type ModelTask,
  ModelgateError,
  type PreparationTimings,
  requiredBundleFiles,
} from '@modelgate/contracts';
import { tokenizerMaxLength } from '@modelgate/processing';
import { type ModelIo } from '../models/model.entity.js';
import { checkIoForTask, checkLabels, labelsFromHfConfig, repeatedLabelProblem } from './io-requirements.js';
import {
  type BundleFiles,
  causalLmHint,
  checkBundleForTask,
  generationConfigOf,
  imageFactsOf,
  readBundle,
} from './bundle-checks.js';
import { generationFactsOf, withGenerationDefaults } from './decoder-export.js';
import { checkEncoderGraph, DECODER_LABEL, ENCODER_LABEL } from './vision-encoder-decoder.js';
import { checkTokenLabels } from './token-outputs.js';
import { type InspectedModel } from './onnx-inspector.js';

/** Fetches verified artifacts (the registry's ModelStore, or its own upload store). */
export interface ArtifactFetcher {
  /** The model file's path, its external data files beside it under their names. */
  fetchModel(files: {
    artifact: ArtifactRef;
    externalData: readonly ExternalDataRef[];
  }): Promise<{ path: string }>;
  fetchBundle(ref: ArtifactRef): Promise<{ dir: string }>;
}

/** What preparation needs from the outside world. */
export interface PreparationDeps {
  fetcher: ArtifactFetcher;
  open(path: string, fileLabel: string): Promise<InspectedModel>;
  now?: () => number;
}

/** The model to prepare. */
export interface PreparationRequest {
  task: ModelTask;
  /** The model file; image-to-text: the decoder with past. */
  artifact: ArtifactRef;
  /** image-to-text: the vision encoder graph; null for other tasks. */
  encoder: ArtifactRef | null;
  /** ONNX external data files of the model. */
  externalData: readonly ExternalDataRef[];
  tokenizer: ArtifactRef | null;
  /** Labels given at registration; config.json's id2label fills in when null. */
  labels: string[] | null;
  /** The model's batching, checked against its graph's inputs; unchecked when absent. */
  batching?: EncoderBatchingSettings;
}

/** What preparation learned: the model's tensors, its labels, the time each step took. */
export interface PreparationResult {
  io: ModelIo;
  labels: string[] | null;
  timings: PreparationTimings;
}

/**
 * Fetch → verify sha256 → open with onnxruntime → check inputs and outputs against the task →
 * warm-up run (DESIGN §3.6). Throws ModelgateError whose message says what to fix; its code
 * tells a transient failure (UNAVAILABLE, DEADLINE_EXCEEDED: worth a retry) from a final one.
 */
export async function prepareModel(
  request: PreparationRequest,
  deps: PreparationDeps,
): Promise<PreparationResult> {
  const now = deps.now ?? (() => performance.now());
  const started = now();
  const { path } = await labelled('artifact', () =>
    deps.fetcher.fetchModel({ artifact: request.artifact, externalData: request.externalData }),
  );
  const encoderPath = await fetchEncoder(request, deps.fetcher);
  let labels = request.labels;
  let bundle: BundleFiles = {};
  if (request.tokenizer !== null) {
    const tokenizer = request.tokenizer;
    const { dir } = await labelled('tokenizer', () => deps.fetcher.fetchBundle(tokenizer));
    bundle = await readBundle(dir, isGenerativeTask(request.task) || request.task === 'question-answering');
    labels ??= labelsFromHfConfig(bundle.config) ?? null;
  }
  const fetched = now();

  const encoder = encoderPath === undefined ? undefined : await deps.open(encoderPath, ENCODER_LABEL);
  try {
    const model = await deps.open(path, request.task === 'image-to-text' ? DECODER_LABEL : 'model.onnx');
    try {
      const opened = now();
      const problems = [
        ...(encoder === undefined ? [] : checkEncoderGraph(encoder, model.inputs)),
        ...model.nonTensors.map(
          (name) => `${name} is not a tensor; only tensor inputs and outputs can be served`,
        ),
        ...checkIoForTask(request.task, model.inputs, model.outputs),
      ];
      // Only of a graph that is a decoder: another one already has its reason.
      const batching = request.batching;
      if (batching !== undefined && isGenerativeTask(request.task)) {
        const batchSizeProblem =
          problems.length === 0 ? decoderBatchSizeProblem(batching.maxBatchSize, model.inputs) : undefined;
        if (batchSizeProblem !== undefined) problems.push(batchSizeProblem);
      } else if (batching !== undefined) {
        problems.push(...encoderBatchingProblems(batching, model.inputs));
      }
      const labelProblem =
        request.task === 'text-classification' || request.task === 'image-classification'
          ? checkLabels(labels, model.outputs)
          : request.task === 'token-classification'
            ? checkTokenLabels(labels, model.outputs)
            : undefined;
      if (labelProblem !== undefined) problems.push(labelProblem);
      const repeatedLabel = repeatedLabelProblem(labels);
      if (repeatedLabel !== undefined) problems.push(repeatedLabel);
      const imageInputs = (encoder ?? model).inputs;
      problems.push(...checkBundleForTask(request.task, bundle, model.outputs, imageInputs));
      const hint = problems.length > 0 ? causalLmHint(request.task, bundle, model.inputs) : undefined;
      if (hint !== undefined) problems.push(hint);
      if (problems.length > 0) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, problems.join('; '));

      const image = imageFactsOf(request.task, bundle, imageInputs);
      const size = image ? [image.channels, image.height, image.width] : undefined;
      const warmUpMs = sumDefined([
        encoder === undefined ? undefined : await warmUp(encoder, ENCODER_LABEL, size),
        await warmUp(model, encoder === undefined ? undefined : DECODER_LABEL, size),
      ]);
      const done = now();
      const generation = isGenerativeTask(request.task)
        ? withGenerationDefaults(
            generationFactsOf(generationConfigOf(request.task, bundle.config), model.outputs, request.task),
            request.task === 'text-generation' ? bundle.generationConfig : undefined,
          )
        : undefined;
      // What the gateway cuts an endpoint's maxTokens to (its tokenizer's maxLength).
      const maxTokens = takesText(request)
        ? tokenizerMaxLength({
            tokenizerConfig: jsonObject(bundle.tokenizerConfig),
            config: jsonObject(bundle.config),
            generationConfig: jsonObject(bundle.generationConfig),
          })
        : undefined;
      return {
        io: {
          inputs: model.inputs,
          outputs: model.outputs,
          ...(typeof generation === 'object' ? { generation } : {}),
          ...(image === undefined ? {} : { image }),
          ...(maxTokens === undefined ? {} : { maxTokens }),
        },
        labels: hasLabels(request.task) ? labels : null,
        timings: {
          fetchMs: round(fetched - started),
          openMs: round(opened - fetched),
          ...(warmUpMs === undefined ? {} : { warmUpMs: round(warmUpMs) }),
          totalMs: round(done - started),
        },
      };
    } finally {
      await model.release();
    }
  } finally {
    await encoder?.release();
  }
}

/** image-to-text: the verified encoder's path (INVALID_ARGUMENT when there is none); undefined for other tasks. */
async function fetchEncoder(
  request: PreparationRequest,
  fetcher: ArtifactFetcher,
): Promise<string | undefined> {
  if (request.task !== 'image-to-text') return undefined;
  const encoder = request.encoder;
  if (encoder === null) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      'task image-to-text needs its encoder (encoder_model.onnx) beside the decoder; register it with encoder {uri, sha256}',
    );
  }
  const { path } = await labelled('encoder', () =>
    fetcher.fetchModel({ artifact: encoder, externalData: [] }),
  );
  return path;
}

/** One warm-up run's duration; its failure as INVALID_ARGUMENT naming the graph when there are two. */
async function warmUp(
  model: InspectedModel,
  label: string | undefined,
  image: readonly number[] | undefined,
): Promise<number | undefined> {
  try {
    return await model.warmUp(image);
  } catch (error) {
    const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `the warm-up run${label === undefined ? '' : ` of ${label}`} failed in onnxruntime: ${reason}`,
    );
  }
}

function sumDefined(values: readonly (number | undefined)[]): number | undefined {
  const known = values.filter((value): value is number => value !== undefined);
  return known.length === 0 ? undefined : known.reduce((a, b) => a + b, 0);
}

/** Failures worth another attempt: the source was unreachable or slow, not wrong. */
export function isTransientFailure(error: unknown): boolean {
  if (!isModelgateError(error)) return true;
  return error.code === ErrorCode.UNAVAILABLE || error.code === ErrorCode.DEADLINE_EXCEEDED;
}

/** Hints naming the setting that would allow what the model store refused. */
const SETTING_HINTS: [RegExp, string][] = [
  [/allowedHosts/, 'REGISTRY_ARTIFACT_ALLOWED_HOSTS'],
  [/allowed file roots|no fileRoots/, 'REGISTRY_ARTIFACT_ROOTS'],
  [/allowHttp is false/, 'REGISTRY_ALLOW_HTTP_ARTIFACTS'],
];

/** Runs a fetch of `what`, prefixing a failure's message with it and the setting that would allow it. */
export async function labelled<T>(
  what: 'artifact' | 'encoder' | 'tokenizer' | 'source',
  fetch: () => Promise<T>,
): Promise<T> {
  try {
    return await fetch();
  } catch (error) {
    if (!isModelgateError(error)) throw error;
    const hint = SETTING_HINTS.find(([pattern]) => pattern.test(error.message))?.[1];
    const message = `${what}: ${error.message}${hint ? ` (setting: ${hint})` : ''}`;
    throw new ModelgateError(error.code, message, error.details, { cause: error });
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** Whether the gateway tokenizes text for the model: a tokenizer.json-bearing text task. */
function takesText(request: PreparationRequest): boolean {
  return (
    request.tokenizer !== null &&
    request.task !== 'image-to-text' &&
    requiredBundleFiles(request.task).includes('tokenizer.json')
  );
}

/** A bundle file read as JSON, when it is an object (a missing or odd one counts as absent). */
function jsonObject(value: unknown): object | undefined {
  return typeof value === 'object' && value !== null ? value : undefined;
}
