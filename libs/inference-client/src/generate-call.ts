import { ErrorCode, GrpcStatus, ModelgateError } from '@modelgate/contracts';
import { type Penalties, type TokenLogprob } from '@modelgate/generation';
import {
  type ModelGenerateRequestMessage,
  type ModelGenerateResponseMessage,
  type TokenLogprobMessage,
} from './generate-messages.js';
import { type WorkerPick } from './pick-worker.js';
import { WorkerCallError, type WorkerCallOptions, type WorkerChannel } from './worker-channel.js';
import { noReadyWorkerError, workerCallToModelgateError } from './worker-errors.js';

/** One generation call: a tokenized prompt, how to decode it, and where and how long to run it. */
export interface GenerateRequest {
  modelName: string;
  /** Empty or absent: the worker's pick. */
  modelVersion?: string;
  /** Request id, echoed by the worker. */
  id?: string;
  /** The prompt's token ids (at least one); image-to-text: the decoder's start token(s). */
  inputIds: readonly number[];
  /** image-to-text only: the preprocessed image, [channels, height, width] FP32. */
  pixelValues?: { data: Float32Array; dims: readonly number[] } | undefined;
  /** Most tokens to generate (at least 1). */
  maxNewTokens: number;
  /** Ids that end the sequence (the model's EOS); empty: only maxNewTokens ends it. */
  eosTokenIds: readonly number[];
  /** False: greedy; true: sampling shaped by temperature, topK and topP. */
  doSample: boolean;
  temperature: number;
  /** 0 = off. */
  topK: number;
  /** 1 = off. */
  topP: number;
  /** Integer seed of the sampler; absent: a random one. */
  seed?: number | undefined;
  /** The processors that read the sequence's history (repetition, presence, n-grams, min length); absent: none. */
  penalties?: Penalties | undefined;
  /** Report each token's log-probability and this many of its step's most likely tokens; absent: none. */
  logprobs?: number | undefined;
  /** Absolute deadline of the whole generation, ms since the epoch; sent as `grpc-timeout`. */
  deadlineEpochMs: number;
  /** Worker group to send the call to; ignored when `addresses` is given. */
  workerGroup?: string;
  /** Exact worker addresses to choose from, instead of a group. */
  addresses?: readonly string[];
  /** gRPC metadata for the worker, e.g. `{ 'x-request-id': id }`. */
  metadata?: Readonly<Record<string, string>>;
  /** Aborting it cancels the call, and the worker frees the sequence's slot. */
  signal?: AbortSignal;
}

/** Tokens of one sequence since the previous chunk, as the worker streamed them. */
export interface GenerateChunk {
  tokenIds: number[];
  /** Set on the last chunk only. */
  finishReason?: 'length' | 'eos';
  promptTokens: number;
  /** Tokens generated so far, this chunk's included. */
  generatedTokens: number;
  /** Time the request waited on the worker before its prefill, in ms (first chunk). */
  queueMs?: number;
  /** Model time this sequence took part in so far, in ms. */
  computeMs?: number;
  /** With the request's logprobs: one per token id, in order. */
  logprobs?: TokenLogprob[];
}

/**
 * A generation under way, started once its first chunk arrived (so failures known up front, such
 * as a full queue, reject `InferenceClient.generate` itself). Iterate it once; leaving early or
 * calling `cancel` cancels the worker call. Failures during the stream throw a ModelgateError.
 */
export interface GenerateCall extends AsyncIterable<GenerateChunk> {
  /** Address of the worker that runs it. */
  readonly worker: string;
  /** Attempts made: 1, or more after retries before the first chunk. */
  readonly attempts: number;
  /** Cancels the worker call (idempotent); iteration then ends. */
  cancel(): void;
}

/** What `startGeneration` needs from the client: balancing, load accounting and retry rules. */
export interface GenerationHost {
  now(): number;
  recordRequest(): void;
  pick(addresses: readonly string[], tried: ReadonlySet<string>): WorkerPick | undefined;
  acquire(address: string): { channel: WorkerChannel; release: () => void };
  /** Feeds outlier ejection with a call's status (OK = 0 for an answer). */
  recordOutcome(address: string, status: number): void;
  /** The call's first message (OK) or its failure before one: what the stall watch hears of it. */
  settle(address: string, status: number, details?: string): void;
  /** A later message of a running stream: the worker is alive (a stall watch's evidence). */
  spoke(address: string): void;
  mayRetry(
    status: number,
    attempt: number,
    addresses: readonly string[],
    tried: ReadonlySet<string>,
    call: { signal?: AbortSignal | undefined; deadlineEpochMs: number },
    failedAddress: string,
    dispatchedAt: number,
  ): boolean;
}

/**
 * Starts ModelGenerate on the least loaded of `addresses`: the worker counts as loaded for the
 * call's whole life; a retryable failure before the first message is retried on another worker
 * like ModelInfer; after the first message nothing is retried (tokens were already produced).
 */
export async function startGeneration(
  host: GenerationHost,
  request: GenerateRequest,
  addresses: readonly string[],
): Promise<GenerateCall> {
  const model = request.modelVersion ? `${request.modelName}:${request.modelVersion}` : request.modelName;
  if (!Number.isFinite(request.deadlineEpochMs)) {
    throw new ModelgateError(ErrorCode.INTERNAL, 'a generation call needs a finite deadlineEpochMs');
  }
  if (addresses.length === 0) throw noReadyWorkerError(model);
  const message = encodeGenerateRequest(request);
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (request.signal?.aborted) controller.abort();
  else request.signal?.addEventListener('abort', onAbort, { once: true });
  const options: WorkerCallOptions = {
    deadlineEpochMs: request.deadlineEpochMs,
    metadata: request.metadata,
    signal: controller.signal,
  };
  const detach = () => request.signal?.removeEventListener('abort', onAbort);
  host.recordRequest();
  const tried = new Set<string>();
  for (let attempt = 1; ; attempt++) {
    const pick = host.pick(addresses, tried);
    if (pick === undefined) {
      detach();
      throw noReadyWorkerError(model);
    }
    tried.add(pick.address);
    const dispatchedAt = host.now();
    const lease = host.acquire(pick.address);
    const iterator = lease.channel.modelGenerate(message, options)[Symbol.asyncIterator]();
    try {
      const first = await iterator.next();
      host.settle(pick.address, GrpcStatus.OK);
      host.recordOutcome(pick.address, GrpcStatus.OK);
      return new RunningGeneration(
        pick.address,
        attempt,
        first,
        iterator,
        model,
        host,
        () => {
          lease.release();
          detach();
        },
        controller,
      );
    } catch (error) {
      lease.release();
      if (!(error instanceof WorkerCallError)) {
        host.settle(pick.address, GrpcStatus.UNKNOWN);
        detach();
        throw error;
      }
      host.settle(pick.address, error.status, error.details);
      host.recordOutcome(pick.address, error.status);
      if (!host.mayRetry(error.status, attempt, addresses, tried, request, pick.address, dispatchedAt)) {
        detach();
        throw workerCallToModelgateError(error.status, error.details, model, error);
      }
    }
  }
}

/** The request message of `request`. */
export function encodeGenerateRequest(request: GenerateRequest): ModelGenerateRequestMessage {
  return {
    model_name: request.modelName,
    model_version: request.modelVersion ?? '',
    id: request.id ?? '',
    input_ids: [...request.inputIds],
    max_new_tokens: request.maxNewTokens,
    eos_token_ids: [...request.eosTokenIds],
    do_sample: request.doSample,
    temperature: request.temperature,
    top_k: request.topK,
    top_p: request.topP,
    has_seed: request.seed !== undefined,
    seed: request.seed ?? 0,
    ...(request.pixelValues ? pixelFields(request.pixelValues) : {}),
    ...(request.penalties ? penaltyFields(request.penalties) : {}),
    ...(request.logprobs === undefined ? {} : { logprobs: true, top_logprobs: request.logprobs }),
  };
}

/** The processors as the message carries them: only those that act (0 is off for each). */
function penaltyFields(penalties: Penalties): Partial<ModelGenerateRequestMessage> {
  return {
    ...(penalties.repetitionPenalty !== 1 ? { repetition_penalty: penalties.repetitionPenalty } : {}),
    ...(penalties.frequencyPenalty !== 0 ? { frequency_penalty: penalties.frequencyPenalty } : {}),
    ...(penalties.presencePenalty !== 0 ? { presence_penalty: penalties.presencePenalty } : {}),
    ...(penalties.noRepeatNgramSize !== 0 ? { no_repeat_ngram_size: penalties.noRepeatNgramSize } : {}),
    ...(penalties.minNewTokens !== 0 ? { min_new_tokens: penalties.minNewTokens } : {}),
  };
}

/** The image as the message carries it: the FP32 values' bytes (no copy) and their dims. */
function pixelFields(pixels: { data: Float32Array; dims: readonly number[] }) {
  const { buffer, byteOffset, byteLength } = pixels.data;
  return {
    pixel_values: new Uint8Array(buffer, byteOffset, byteLength),
    pixel_values_shape: [...pixels.dims],
  };
}

/** One response message as a chunk; INTERNAL for a finish reason this client does not know. */
export function decodeGenerateResponse(message: ModelGenerateResponseMessage, model: string): GenerateChunk {
  const reason = message.finish_reason ?? '';
  if (reason !== '' && reason !== 'length' && reason !== 'eos') {
    throw new ModelgateError(
      ErrorCode.INTERNAL,
      `model '${model}' ended with unknown finish_reason '${reason}'`,
    );
  }
  const chunk: GenerateChunk = {
    tokenIds: (message.token_ids ?? []).map(Number),
    promptTokens: Number(message.prompt_tokens ?? 0),
    generatedTokens: Number(message.generated_tokens ?? 0),
  };
  if (reason !== '') chunk.finishReason = reason;
  if (message.queue_micros) chunk.queueMs = Number(message.queue_micros) / 1000;
  if (message.compute_micros) chunk.computeMs = Number(message.compute_micros) / 1000;
  if (message.logprobs?.length) chunk.logprobs = message.logprobs.map(tokenLogprobOf);
  return chunk;
}

/** One token's log-probability as the message carries it (ids as numbers, alternatives paired). */
function tokenLogprobOf(message: TokenLogprobMessage): TokenLogprob {
  const ids = message.top_ids ?? [];
  const logprobs = message.top_logprobs ?? [];
  return {
    logprob: Number(message.logprob ?? 0),
    top: ids.map((id, index) => ({ id: Number(id), logprob: Number(logprobs[index] ?? 0) })),
  };
}

/** The GenerateCall of a worker stream whose first message (or end) is in. */
class RunningGeneration implements GenerateCall {
  private finished = false;
  private iterated = false;

  constructor(
    readonly worker: string,
    readonly attempts: number,
    private readonly first: IteratorResult<ModelGenerateResponseMessage>,
    private readonly iterator: AsyncIterator<ModelGenerateResponseMessage>,
    private readonly model: string,
    private readonly host: GenerationHost,
    private readonly release: () => void,
    private readonly controller: AbortController,
  ) {
    // Aborted (cancel(), or the caller's signal) even if never iterated: the worker is free again
    // now, not when (or if) someone reads the stream.
    if (controller.signal.aborted) this.onAbort();
    else controller.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  cancel(): void {
    if (this.finished) return;
    this.controller.abort();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<GenerateChunk> {
    if (this.iterated) throw new ModelgateError(ErrorCode.INTERNAL, 'a generation stream is iterated once');
    this.iterated = true;
    let completed = false;
    let lastMessageIn = false;
    try {
      let next = this.first;
      while (!next.done && !this.finished) {
        const chunk = decodeGenerateResponse(next.value, this.model);
        // The last message is in: nothing to cancel even if the consumer stops here.
        if (chunk.finishReason !== undefined) completed = lastMessageIn = true;
        yield chunk;
        if (completed) return;
        next = await this.iterator.next();
        this.host.spoke(this.worker);
      }
      if (!this.controller.signal.aborted) {
        throw new ModelgateError(
          ErrorCode.INTERNAL,
          `model '${this.model}' ended its stream without a finish_reason`,
        );
      }
      completed = true;
    } catch (error) {
      if (!(error instanceof WorkerCallError)) throw error;
      // Cancelled on purpose (cancel(), or the caller's signal): the iteration just ends.
      if (error.status === GrpcStatus.CANCELLED && this.controller.signal.aborted) return;
      this.host.recordOutcome(this.worker, error.status);
      throw workerCallToModelgateError(error.status, error.details, this.model, error);
    } finally {
      // Not read to its end: cancel, so the worker frees the slot at its next step.
      if (!completed) this.controller.abort();
      // After the last message the call ends with its status: read it, so the call completes
      // instead of being cancelled (an RST_STREAM) by the channel.
      if (lastMessageIn) await this.readStatus();
      await this.iterator.return?.();
      this.finish();
    }
  }

  /** Reads the stream to its end after the last message; a late failure changes nothing now. */
  private async readStatus(): Promise<void> {
    try {
      while (!(await this.iterator.next()).done && !this.controller.signal.aborted);
    } catch {
      // The text is complete; a status after it (e.g. the deadline) has nobody to tell.
    }
  }

  private readonly onAbort = (): void => {
    // Never iterated: end the channel's stream here (its finally cancels the call and detaches).
    if (!this.iterated) void this.iterator.return?.()?.catch(() => undefined);
    this.finish();
  };

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.controller.signal.removeEventListener('abort', this.onAbort);
    this.release();
  }
}
