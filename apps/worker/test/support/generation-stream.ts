// Reading ModelGenerate streams in the worker's generation integration tests.
import { type ClientReadableStream, type ServiceError } from '@grpc/grpc-js';
import { loadTokenizerFromDir } from '@modelgate/processing';
import { type Message, metricValue } from '@modelgate/testing';

/** Metadata key of the generation-pause test hook. */
export const PAUSE = 'x-modelgate-test-generation-pause';
/** Pauses the loop after the sequence's first token until it is cancelled (99 never wait). */
export const HOLD_AFTER_FIRST = { [PAUSE]: '1:99' };

/** Token-id prompts of the tiny-gpt2 tests. */
export const PROMPTS = [[464, 2068, 7586, 21831], [15496], [40, 588, 257, 1332, 13, 632, 318], [50256, 1212]];

/** A stream read to its end. */
export interface Streamed {
  tokens: number[];
  messages: Message[];
}

/** A stream being read. */
export interface Followed {
  /** The first message (rejects when the stream fails before one). */
  first: Promise<Message>;
  /** Every message once the stream ends (rejects with the grpc-js ServiceError of a failed call). */
  done: Promise<Streamed>;
}

/** Follows a ModelGenerate stream from its first message to its end. */
export function follow(stream: ClientReadableStream<Message>): Followed {
  const messages: Message[] = [];
  let firstSeen: (message: Message) => void = () => undefined;
  let firstFailed: (error: unknown) => void = () => undefined;
  const first = new Promise<Message>((resolve, reject) => {
    firstSeen = resolve;
    firstFailed = reject;
  });
  const done = new Promise<Streamed>((resolve, reject) => {
    stream.on('data', (message: Message) => {
      messages.push(message);
      if (messages.length === 1) firstSeen(message);
    });
    stream.on('error', (error) => {
      firstFailed(error);
      reject(error);
    });
    stream.on('end', () => resolve({ tokens: messages.flatMap((m) => m.token_ids as number[]), messages }));
  });
  first.catch(() => undefined);
  done.catch(() => undefined);
  return { first, done };
}

/** Reads a ModelGenerate stream to its end. */
export const collect = (stream: ClientReadableStream<Message>): Promise<Streamed> => follow(stream).done;

/** The gRPC error a stream ends with. */
export async function failure(stream: ClientReadableStream<Message> | Followed): Promise<ServiceError> {
  try {
    await ('done' in stream ? stream.done : collect(stream));
  } catch (error) {
    return error as ServiceError;
  }
  throw new Error('the stream ended without an error');
}

/** The fixture's own tokenizer.json, through the gateway's tokenizer adapter. */
export async function encoderOf(fixtureDir: string): Promise<(text: string) => number[]> {
  const tokenizer = await loadTokenizerFromDir(fixtureDir);
  return (text) => tokenizer.tokenize(text);
}

/** A ModelGenerate request. */
export const request = (
  model: string,
  inputIds: number[],
  maxNewTokens: number,
  extra: Message = {},
): Message => ({
  model_name: model,
  input_ids: inputIds,
  max_new_tokens: maxNewTokens,
  ...extra,
});

/** How a generation metric of version 1 of `model` moved between two scrapes of the worker's /metrics. */
export function metricDelta(
  before: string,
  after: string,
  model: string,
): (name: string, labels?: Record<string, string>) => number {
  return (name, labels = {}) =>
    metricValue(after, name, { model, version: '1', ...labels }) -
    metricValue(before, name, { model, version: '1', ...labels });
}

/** Decode steps of `model` between two scrapes, and how many of them ran a single sequence. */
export function stepsBetween(
  before: string,
  after: string,
  model: string,
): { steps: number; single: number } {
  const delta = metricDelta(before, after, model);
  return {
    steps: delta('modelgate_generation_step_batch_size_count'),
    single: delta('modelgate_generation_step_batch_size_bucket', { le: '1' }),
  };
}
