import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  type ArtifactRef,
  ErrorCode,
  type ExternalDataRef,
  isModelgateError,
  type ModelTask,
  ModelgateError,
  type PreparationTimings,
  type TensorMetadata,
} from '@modelgate/contracts';
import { type ModelIo } from '../models/model.entity.js';
import { checkIoForTask, checkLabels, labelsFromHfConfig } from './io-requirements.js';
import {
  causalLmArchitecture,
  checkDecoderVocab,
  eosTokenIdsOf,
  generationFactsOf,
  hasPastInputs,
  tokenizerVocabSize,
} from './decoder-export.js';
import { checkImageBundle } from './image-io.js';
import { checkTokenLabels } from './token-outputs.js';
import { type InspectedModel } from './onnx-inspector.js';

/** Tasks whose answers name classes, so preparation keeps the model's labels. */
const TASKS_WITH_LABELS: ReadonlySet<ModelTask> = new Set([
  'text-classification',
  'token-classification',
  'image-classification',
]);

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
  artifact: ArtifactRef;
  /** ONNX external data files of the model. */
  externalData: readonly ExternalDataRef[];
  tokenizer: ArtifactRef | null;
  /** Labels given at registration; config.json's id2label fills in when null. */
  labels: string[] | null;
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
  let labels = request.labels;
  let bundle: BundleFiles = {};
  if (request.tokenizer !== null) {
    const tokenizer = request.tokenizer;
    const { dir } = await labelled('tokenizer', () => deps.fetcher.fetchBundle(tokenizer));
    bundle = await readBundle(dir, request.task === 'text-generation');
    labels ??= labelsFromHfConfig(bundle.config) ?? null;
  }
  const fetched = now();

  const model = await deps.open(path, 'model.onnx');
  try {
    const opened = now();
    const problems = [
      ...model.nonTensors.map(
        (name) => `${name} is not a tensor; only tensor inputs and outputs can be served`,
      ),
      ...checkIoForTask(request.task, model.inputs, model.outputs),
    ];
    const labelProblem =
      request.task === 'text-classification' || request.task === 'image-classification'
        ? checkLabels(labels, model.outputs)
        : request.task === 'token-classification'
          ? checkTokenLabels(labels, model.outputs)
          : undefined;
    if (labelProblem !== undefined) problems.push(labelProblem);
    problems.push(...checkBundleForTask(request.task, bundle, model.outputs));
    const hint = problems.length > 0 ? causalLmHint(request.task, bundle, model.inputs) : undefined;
    if (hint !== undefined) problems.push(hint);
    if (problems.length > 0) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, problems.join('; '));

    let warmUpMs: number | undefined;
    try {
      warmUpMs = await model.warmUp();
    } catch (error) {
      const reason = error instanceof Error ? error.message.split('\n')[0] : String(error);
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `the warm-up run failed in onnxruntime: ${reason}`,
      );
    }
    const done = now();
    const generation =
      request.task === 'text-generation' ? generationFactsOf(bundle.config, model.outputs) : undefined;
    return {
      io: {
        inputs: model.inputs,
        outputs: model.outputs,
        ...(typeof generation === 'object' ? { generation } : {}),
      },
      labels: TASKS_WITH_LABELS.has(request.task) ? labels : null,
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
  what: 'artifact' | 'tokenizer' | 'source',
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

/** The JSON files of a tokenizer bundle preparation reads; undefined when absent or unreadable. */
interface BundleFiles {
  config?: unknown;
  generationConfig?: unknown;
  /** preprocessor_config.json: an image model's processor settings. */
  preprocessorConfig?: unknown;
  /** Read for text-generation only (it can be megabytes); null when the bundle has none. */
  tokenizer?: unknown;
}

async function readBundle(dir: string, withTokenizer: boolean): Promise<BundleFiles> {
  const read = async (name: string): Promise<unknown> => {
    try {
      return JSON.parse(await readFile(join(dir, name), 'utf8')) as unknown;
    } catch {
      return undefined;
    }
  };
  return {
    config: await read('config.json'),
    generationConfig: await read('generation_config.json'),
    preprocessorConfig: await read('preprocessor_config.json'),
    ...(withTokenizer ? { tokenizer: (await read('tokenizer.json')) ?? null } : {}),
  };
}

/**
 * Why a model that failed its task's checks may be a decoder: its config.json names a causal
 * language model (…ForCausalLM). Only a hint beside other problems: a causal LM exported for
 * feature-extraction keeps that config.json and is served as such.
 */
function causalLmHint(
  task: ModelTask,
  bundle: BundleFiles,
  inputs: readonly TensorMetadata[],
): string | undefined {
  if (task === 'raw' || task === 'text-generation' || hasPastInputs(inputs)) return undefined;
  const architecture = causalLmArchitecture(bundle.config);
  return architecture === undefined
    ? undefined
    : `config.json names ${architecture}, a causal language model: register it as text-generation ` +
        '(an export with past: optimum-cli export onnx --task text-generation-with-past)';
}

/**
 * What the tokenizer bundle says against a text-generation model (it needs tokenizer.json and a
 * vocabulary its logits, config.json and tokenizer agree on) or an image-classification model (it
 * needs preprocessor_config.json).
 */
function checkBundleForTask(
  task: ModelTask,
  bundle: BundleFiles,
  outputs: readonly TensorMetadata[],
): string[] {
  if (task === 'image-classification') return checkImageBundle(bundle.preprocessorConfig);
  if (task !== 'text-generation') return [];
  if (bundle.tokenizer === null || bundle.tokenizer === undefined) {
    return [
      'task text-generation needs tokenizer.json in the tokenizer bundle (to tokenize prompts and detokenize text)',
    ];
  }
  const configVocab = (bundle.config as { vocab_size?: unknown } | undefined)?.vocab_size;
  const facts = generationFactsOf(bundle.config, outputs);
  return [
    ...checkDecoderVocab({
      logits: outputs.find((output) => output.name === 'logits')?.dims[2],
      config: typeof configVocab === 'number' ? configVocab : undefined,
      tokenizer: tokenizerVocabSize(bundle.tokenizer),
      eosTokenIds: eosTokenIdsOf(bundle.generationConfig) ?? eosTokenIdsOf(bundle.config),
    }),
    ...(typeof facts === 'string' ? [facts] : []),
  ];
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
