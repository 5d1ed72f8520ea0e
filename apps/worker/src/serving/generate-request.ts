/**
 * ModelGenerate's messages as @grpc/proto-loader hands them to us (`keepCase`, `longs: String`,
 * `defaults: false`), and the check that turns a request into what the GenerationRunner takes.
 */
import { ErrorCode, type Int64Like, ModelgateError, int64ToBigInt } from '@modelgate/contracts';
import {
  MAX_NEW_TOKENS_LIMIT,
  MAX_TOP_LOGPROBS,
  type Penalties,
  type TokenLogprob,
  hasPenalties,
} from '@modelgate/generation';
import { type ImagePixels } from '../generation/generation-protocol.js';
import { type GenerateRequest } from '../generation/generation-runner.js';

export interface ModelGenerateRequestMessage {
  model_name: string;
  model_version?: string;
  id?: string;
  input_ids?: Int64Like[];
  max_new_tokens?: number;
  eos_token_ids?: Int64Like[];
  do_sample?: boolean;
  temperature?: number;
  top_k?: number;
  top_p?: number;
  has_seed?: boolean;
  seed?: Int64Like;
  /** image-to-text: one image's FP32 values, little-endian (a Buffer from the proto loader). */
  pixel_values?: Uint8Array;
  pixel_values_shape?: Int64Like[];
  repetition_penalty?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  no_repeat_ngram_size?: number;
  min_new_tokens?: number;
  logprobs?: boolean;
  top_logprobs?: number;
}

export interface TokenLogprobMessage {
  logprob: number;
  top_ids: string[];
  top_logprobs: number[];
}

export interface ModelGenerateResponseMessage {
  model_name: string;
  model_version: string;
  id: string;
  token_ids: string[];
  finish_reason: string;
  prompt_tokens: number;
  generated_tokens: number;
  queue_micros: string;
  compute_micros: string;
  logprobs?: TokenLogprobMessage[];
}

/**
 * The runner's request from `message`, or INVALID_ARGUMENT naming the bad field: at least one
 * input id, every id in [0, vocabSize) when the vocabulary is known (an id out of range would
 * fail the whole running batch), max_new_tokens from 1 to MAX_NEW_TOKENS_LIMIT, and with
 * do_sample a temperature > 0, top_p in [0, 1] and a seed below 2^53; without it, none of those
 * (nor top_k) other than their neutral values (temperature 0 or 1, top_k 0, top_p 0 or 1, no seed). `imageDims` (image-to-text
 * models: the encoder's [C, H, W], -1 where dynamic) makes pixel_values required; without it they
 * are refused.
 */
export function decodeGenerateRequest(
  message: ModelGenerateRequestMessage,
  vocabSize: number | undefined,
  imageDims?: readonly number[],
): GenerateRequest {
  const pixels = pixelsOf(message, imageDims);
  const promptIds = tokenIds(message.input_ids ?? [], 'input_ids', vocabSize);
  if (promptIds.length === 0) throw invalid('input_ids must hold at least one token id');
  const maxNewTokens = message.max_new_tokens ?? 0;
  if (!Number.isInteger(maxNewTokens) || maxNewTokens < 1 || maxNewTokens > MAX_NEW_TOKENS_LIMIT) {
    throw invalid(`max_new_tokens must be an integer from 1 to ${MAX_NEW_TOKENS_LIMIT}, got ${maxNewTokens}`);
  }
  const eosTokenIds = tokenIds(message.eos_token_ids ?? [], 'eos_token_ids', undefined);
  const doSample = message.do_sample === true;
  const temperature = message.temperature ?? 1;
  const topK = message.top_k ?? 0;
  const topP = message.top_p === undefined || message.top_p === 0 ? 1 : message.top_p;
  let seed: number | undefined;
  if (!doSample) {
    // Greedy decoding reads none of them: a value that would change sampling is refused, not dropped.
    const knobs = [
      ...(temperature !== 0 && temperature !== 1 ? ['temperature'] : []),
      ...(topK !== 0 ? ['top_k'] : []),
      ...(topP !== 1 ? ['top_p'] : []),
      ...(message.has_seed === true ? ['seed'] : []),
    ];
    if (knobs.length > 0)
      throw invalid(
        `${knobs.join(', ')} only act${knobs.length > 1 ? '' : 's'} with do_sample (greedy decoding reads none): set do_sample or drop ${knobs.length > 1 ? 'them' : 'it'}`,
      );
  } else {
    if (!(temperature > 0) || !Number.isFinite(temperature)) {
      throw invalid(`temperature must be > 0 when do_sample is set, got ${temperature}`);
    }
    if (!(topP > 0 && topP <= 1)) throw invalid(`top_p must be in (0, 1], got ${topP}`);
    if (message.has_seed === true) {
      seed = Number(int64ToBigInt(message.seed ?? 0, 'seed'));
      if (!Number.isSafeInteger(seed) || seed < 0)
        throw invalid(`seed must be an integer from 0 to 2^53 - 1, got ${seed}`);
    }
  }
  const penalties = penaltiesOf(message, maxNewTokens);
  const top = message.top_logprobs ?? 0;
  if (top > MAX_TOP_LOGPROBS) throw invalid(`top_logprobs must be from 0 to ${MAX_TOP_LOGPROBS}, got ${top}`);
  if (top > 0 && message.logprobs !== true)
    throw invalid('top_logprobs needs logprobs: set logprobs or drop it');
  return {
    promptIds,
    ...(pixels ? { pixels } : {}),
    maxNewTokens,
    eosTokenIds,
    sampling: { doSample, temperature, topK, topP, ...(seed === undefined ? {} : { seed }) },
    ...(hasPenalties(penalties) ? { penalties } : {}),
    ...(message.logprobs === true ? { logprobs: top } : {}),
  };
}

/** One token's log-probability as a response message carries it. */
export function tokenLogprobMessage(logprob: TokenLogprob): TokenLogprobMessage {
  return {
    logprob: logprob.logprob,
    top_ids: logprob.top.map((entry) => String(entry.id)),
    top_logprobs: logprob.top.map((entry) => entry.logprob),
  };
}

/** The history-reading processors of `message` (0 is off for each), or INVALID_ARGUMENT naming the field. */
function penaltiesOf(message: ModelGenerateRequestMessage, maxNewTokens: number): Penalties {
  const repetition = message.repetition_penalty ?? 0;
  if (!Number.isFinite(repetition) || repetition < 0) {
    throw invalid(`repetition_penalty must be > 0 (0 or 1: off), got ${repetition}`);
  }
  const openAi = (name: 'frequency_penalty' | 'presence_penalty'): number => {
    const value = message[name] ?? 0;
    if (!(value >= -2 && value <= 2)) throw invalid(`${name} must be in [-2, 2], got ${value}`);
    return value;
  };
  const minNewTokens = message.min_new_tokens ?? 0;
  if (minNewTokens > maxNewTokens) {
    throw invalid(`min_new_tokens must be at most max_new_tokens (${maxNewTokens}), got ${minNewTokens}`);
  }
  return {
    repetitionPenalty: repetition === 0 ? 1 : repetition,
    frequencyPenalty: openAi('frequency_penalty'),
    presencePenalty: openAi('presence_penalty'),
    noRepeatNgramSize: message.no_repeat_ngram_size ?? 0,
    minNewTokens,
  };
}

/**
 * The image of an image-to-text request: pixel_values_shape must be [C, H, W] as the encoder
 * takes (its static dims), pixel_values exactly their product of FP32 values. The values are read
 * in place when the bytes are 4-aligned, else copied once into an aligned array of their own.
 */
function pixelsOf(
  message: ModelGenerateRequestMessage,
  imageDims: readonly number[] | undefined,
): ImagePixels | undefined {
  const bytes = message.pixel_values ?? new Uint8Array(0);
  const shape = message.pixel_values_shape ?? [];
  if (imageDims === undefined) {
    if (bytes.byteLength > 0 || shape.length > 0)
      throw invalid('pixel_values are for image-to-text models only; this model takes input_ids alone');
    return undefined;
  }
  if (bytes.byteLength === 0)
    throw invalid('pixel_values are required: an image-to-text model captions an image');
  const dims = shape.map((dim) => Number(int64ToBigInt(dim, 'pixel_values_shape')));
  const expected = `[${imageDims.map((dim) => (dim >= 0 ? dim : '?')).join(', ')}]`;
  const fits =
    dims.length === imageDims.length &&
    dims.every(
      (dim, axis) =>
        Number.isSafeInteger(dim) && dim > 0 && (imageDims[axis]! < 0 || dim === imageDims[axis]),
    );
  if (!fits) {
    throw invalid(
      `pixel_values_shape must be [channels, height, width] = ${expected} for this model, got [${dims.join(', ')}]`,
    );
  }
  const count = dims.reduce((a, b) => a * b, 1);
  if (bytes.byteLength !== count * 4) {
    throw invalid(
      `pixel_values must hold ${count} FP32 values (${count * 4} bytes) for shape [${dims.join(', ')}], got ${bytes.byteLength} bytes`,
    );
  }
  if (bytes.byteOffset % 4 === 0)
    return { data: new Float32Array(bytes.buffer, bytes.byteOffset, count), dims };
  const data = new Float32Array(count);
  new Uint8Array(data.buffer).set(bytes);
  return { data, dims };
}

function tokenIds(values: readonly Int64Like[], field: string, vocabSize: number | undefined): number[] {
  return values.map((value, index) => {
    const id = Number(int64ToBigInt(value, field));
    if (!Number.isSafeInteger(id) || id < 0 || (vocabSize !== undefined && id >= vocabSize)) {
      const range = vocabSize === undefined ? 'a token id >= 0' : `a token id from 0 to ${vocabSize - 1}`;
      throw invalid(`${field}[${index}] must be ${range}, got ${id}`);
    }
    return id;
  });
}

function invalid(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message);
}
