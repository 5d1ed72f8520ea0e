/**
 * Streams started generations as Server-Sent Events in each route's own event format (/serve's,
 * Triton's generate_stream, OpenAI's completions with `stream: true`). An error before the stream starts is thrown to the route's
 * error filter (a JSON error with its status); one after is an event of the stream, as both
 * protocols do it, since the status is sent.
 */
import { ModelgateError, isModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply } from 'fastify';
import {
  type GenerationDelta,
  type GenerationEnd,
  type GenerationEvent,
  type GenerationStream,
} from '../serving/generation/generation.service.js';
import { type ErrorBody, toErrorResponse } from './http-exception.filter.js';
import { openSse } from './sse.js';

/**
 * The generation service names the /serve fields in its errors (`text`, `parameters.max_new_tokens`);
 * a surface with other names gets `error` with its own: `field`, the message's `<field>: ` prefix
 * and the parameter's name in the message. Anything else is returned as it is.
 */
export function renameErrorFields(error: unknown, names: Readonly<Record<string, string>>): unknown {
  if (!isModelgateError(error) || error.details.field === undefined) return error;
  const field = error.details.field;
  // `text[1]` (one of several texts) is renamed as `text` is, keeping its index.
  const [, base = field, index = ''] = /^([^[]+)(\[.*)?$/.exec(field) ?? [];
  const indexed = index === '' ? undefined : names[base];
  const renamed = names[field] ?? (indexed === undefined ? undefined : `${indexed}${index}`);
  if (renamed === undefined) return error;
  const word = field.split('.').at(-1) ?? field;
  // A nested parameter's name is unambiguous in a message; a bare `text` is renamed in the prefix only.
  const message = error.message.startsWith(`${field}: `)
    ? `${renamed}: ${error.message.slice(field.length + 2)}`
    : field.includes('.')
      ? error.message.replaceAll(word, renamed)
      : error.message;
  return new ModelgateError(error.code, message, { ...error.details, field: renamed }, { cause: error });
}

/** How a route writes generations as events: the data of each (undefined writes nothing). */
export interface GenerationSseFormat {
  /** Events before the first delta (e.g. the echoed prompts). */
  start(): unknown[];
  /** The event of one text delta of generation `index`, or undefined for none. */
  delta(delta: GenerationDelta, index: number): unknown;
  /** The last events of generation `index`. */
  end(end: GenerationEnd, index: number): unknown[];
  /** Events once every generation ended, e.g. a usage summary over them (`ends` in order). */
  finish?(ends: readonly GenerationEnd[]): unknown[];
  /** The event of an error after the stream began, from the gateway's error body. */
  error(status: number, body: ErrorBody): unknown;
  /** A last raw line, such as OpenAI's `data: [DONE]`. */
  done?: string;
  /** Event names (`event:` lines) of the `end` and `error` events; none: unnamed (`message`). */
  names?: { end?: string; error?: string };
  /** HTTP trailers of a stream that ended (announce them with a `trailer` header). */
  trailers?(ends: readonly GenerationEnd[]): Record<string, string>;
}

/** How a streamed answer went: to its end, cut short by the client, or failed mid-stream. */
export type GenerationSseOutcome =
  { outcome: 'ended' } | { outcome: 'cancelled' } | { outcome: 'failed'; error: unknown };

/**
 * Sends `streams` (one per prompt) as one Server-Sent Events answer, their events interleaved as
 * they come (taking the reply over from Fastify, with the headers it set, such as x-request-id),
 * and says how it went. A client that reads slower than tokens come holds the reading (the
 * response buffer is not let grow). Stops reading when the client went away (the generation
 * service cancels the worker calls on the request's signal) or one generation failed; leaving
 * frees every slot.
 */
export async function sendGenerationSse(
  reply: FastifyReply,
  streams: readonly GenerationStream[],
  format: GenerationSseFormat,
  headers: Record<string, string>,
  logger: Logger,
): Promise<GenerationSseOutcome> {
  reply.hijack();
  const sse = openSse(reply.raw, { ...replyHeaders(reply), ...headers });
  const send = async (data: unknown, name?: string) => {
    if (!sse.event(data, name)) await sse.drained();
  };
  const ends: GenerationEnd[] = [];
  let trailers: Record<string, string> | undefined;
  try {
    for (const data of format.start()) await send(data);
    for await (const { index, event } of mergeGenerations(streams)) {
      if (sse.closed) break;
      if (event.type === 'delta') {
        const data = format.delta(event, index);
        if (data !== undefined && event.text !== '') await send(data);
      } else {
        for (const data of format.end(event, index)) await send(data, format.names?.end);
        ends[index] = event;
      }
    }
    if (ends.filter(Boolean).length < streams.length) return { outcome: 'cancelled' };
    for (const data of format.finish?.(ends) ?? []) await send(data);
    if (format.done !== undefined) sse.raw(format.done);
    trailers = format.trailers?.(ends);
    return { outcome: 'ended' };
  } catch (error) {
    const { status, body } = toErrorResponse(error, reply.request.id, logger);
    sse.event(format.error(status, body), format.names?.error);
    return { outcome: 'failed', error };
  } finally {
    sse.end(trailers);
  }
}

/** One event of one of several generations. */
interface IndexedEvent {
  index: number;
  event: GenerationEvent;
}

type Step = { index: number; result: IteratorResult<GenerationEvent> } | { index: number; error: unknown };

/**
 * The events of `streams` as they come, each with its stream's index. Throws the first failure;
 * on leaving early (a failure, or the consumer stopped) every generation still running is ended,
 * which cancels its worker call.
 */
export async function* mergeGenerations(streams: readonly GenerationStream[]): AsyncGenerator<IndexedEvent> {
  const iterators = streams.map((stream) => stream.events[Symbol.asyncIterator]());
  const next = (index: number): Promise<Step> =>
    iterators[index]!.next().then(
      (result) => ({ index, result }),
      (error: unknown) => ({ index, error }),
    );
  const pending = new Map(iterators.map((_, index) => [index, next(index)]));
  try {
    while (pending.size > 0) {
      const step = await Promise.race(pending.values());
      if ('error' in step) {
        pending.delete(step.index);
        throw step.error;
      }
      if (step.result.done === true) {
        pending.delete(step.index);
        continue;
      }
      pending.set(step.index, next(step.index));
      yield { index: step.index, event: step.result.value };
    }
  } finally {
    // Ends the generations still running (their calls are cancelled); not awaited: a running
    // generation settles its pending step first.
    for (const index of pending.keys()) void iterators[index]!.return?.().catch(() => undefined);
  }
}

/** The headers set on the reply so far (x-request-id, ...), as strings. */
function replyHeaders(reply: FastifyReply): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return headers;
}
