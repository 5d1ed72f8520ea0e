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
} from '@modelgate/contracts';
import { type ModelIo } from '../models/model.entity.js';
import { checkIoForTask, checkLabels, labelsFromHfConfig } from './io-requirements.js';
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
  if (request.tokenizer !== null) {
    const tokenizer = request.tokenizer;
    const { dir } = await labelled('tokenizer', () => deps.fetcher.fetchBundle(tokenizer));
    labels ??= (await readHfLabels(join(dir, 'config.json'))) ?? null;
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
      request.task === 'text-classification'
        ? checkLabels(labels, model.outputs)
        : request.task === 'token-classification'
          ? checkTokenLabels(labels, model.outputs)
          : undefined;
    if (labelProblem !== undefined) problems.push(labelProblem);
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
    return {
      io: { inputs: model.inputs, outputs: model.outputs },
      labels:
        request.task === 'text-classification' || request.task === 'token-classification' ? labels : null,
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

async function readHfLabels(path: string): Promise<string[] | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return labelsFromHfConfig(JSON.parse(text));
  } catch {
    return undefined;
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
