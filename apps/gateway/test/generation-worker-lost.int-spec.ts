// A worker process that dies in the middle of a streamed generation (SIGKILL, after the answer's
// 200 and its first tokens went out), on each streaming route: /serve, OpenAI's completions and
// chat completions, Triton's generate_stream; and one that stops (SIGSTOP) under a chat stream.
// The client must get a last event in the route's error shape and an answer that ends as HTTP
// ends one, never a torn connection nor a second status line. The generation is
// held mid-way by the worker's generation-pause test hook (support/generation-pause.ts), so the
// kill never races the model's speed.
import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { type OccupiedSlot, occupySlot } from './support/generation-pause.js';
import { type SseEvent, type SseStream, postSse } from './support/sse-client.js';

const PROMPT = 'Hello, my name is';
/** Tokens the gateway's stream has when the loop holds: it joins with a call that holds after as many. */
const HELD_AFTER_TOKENS = 4;

/** One streaming route: its body, the model it runs on, and how its error event reads. */
interface StreamingRoute {
  name: string;
  path: string;
  body: unknown;
  model: 'gpt' | 'chat';
  /** Whether `event` is the route's error event (of `code`, where the shape carries one). */
  isError(event: SseEvent, code: string): boolean;
}

/** The `error` object of an event's data, if it has one. */
const errorOf = (event: SseEvent) =>
  (JSON.parse(event.data) as { error?: { code?: unknown; type?: unknown; message?: unknown } }).error;

/** OpenAI's error object as a data event (no `event:` name), of the type OpenAI gives a 5xx. */
const isOpenAiError = (event: SseEvent, code: string) => {
  const error = errorOf(event);
  return (
    event.event === 'message' &&
    error?.code === code &&
    error.type === 'server_error' &&
    typeof error.message === 'string'
  );
};

const ROUTES: StreamingRoute[] = [
  {
    name: '/serve',
    path: '/serve/writer',
    body: { text: PROMPT, parameters: { max_new_tokens: 200 }, stream: true },
    model: 'gpt',
    // /serve's `event: error`, the gateway's error body.
    isError: (event, code) => event.event === 'error' && errorOf(event)?.code === code,
  },
  {
    name: 'OpenAI completions',
    path: '/v1/completions',
    body: { model: 'writer', prompt: PROMPT, max_tokens: 200, stream: true },
    model: 'gpt',
    // OpenAI's error object as a data event, its type the one of a 5xx.
    isError: (event, code) => isOpenAiError(event, code),
  },
  {
    name: 'OpenAI chat completions',
    path: '/v1/chat/completions',
    body: {
      model: 'assistant',
      messages: [{ role: 'user', content: PROMPT }],
      max_completion_tokens: 200,
      stream: true,
    },
    model: 'chat',
    isError: (event, code) => isOpenAiError(event, code),
  },
  {
    name: "Triton's generate_stream",
    path: '/v2/models/gpt/generate_stream',
    body: { text_input: PROMPT, max_tokens: 200 },
    model: 'gpt',
    // Triton's `{error: "<message>"}`: no code.
    isError: (event) => {
      const error = (JSON.parse(event.data) as { error?: unknown }).error;
      return event.event === 'message' && typeof error === 'string' && error !== '';
    },
  },
];

describe('gateway: a worker that dies in the middle of a streamed generation', () => {
  let worker: RunningWorker | undefined;
  let gateway: RunningGateway | undefined;
  const held: OccupiedSlot[] = [];

  afterEach(async () => {
    worker?.process.child.kill('SIGCONT'); // a stopped worker would not hear SIGTERM
    for (const slot of held.splice(0)) slot.release();
    await gateway?.stop();
    await worker?.stop();
  });

  /**
   * Starts a worker and a gateway (endpoints `writer` on gpt, `assistant` on chat, with
   * `endpointTimeoutMs` when given) and a stream on `route` that the worker's loop holds after
   * at most HELD_AFTER_TOKENS tokens; resolves once its status and first tokens went out.
   */
  async function heldStream(route: StreamingRoute, endpointTimeoutMs?: number): Promise<SseStream> {
    const timeout = endpointTimeoutMs === undefined ? {} : { timeoutMs: endpointTimeoutMs };
    const endpoint = (name: string, model: string) => ({
      name,
      task: 'text-generation',
      routes: [{ model: `${model}:1`, weight: 100, role: 'primary' }],
      ...timeout,
    });
    // Three slots: two direct calls hold the loop around the gateway's stream (as in
    // generation-limits.int-spec.ts).
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation', batching: { maxBatchSize: 3 } },
        { name: 'chat', fixture: 'tiny-gpt2-chat', task: 'text-generation', batching: { maxBatchSize: 3 } },
      ],
      { endpoints: [endpoint('writer', 'gpt'), endpoint('assistant', 'chat')] },
    ));
    const running = worker;
    const waiting = async () =>
      metricValue(await running.metrics(), 'modelgate_generation_waiting_sequences', {
        model: route.model,
        version: '1',
      });
    // A: its loop holds after its first token until two sequences wait to join.
    const opener = occupySlot(running, { model: route.model, pause: '1:2', maxNewTokens: 2 });
    held.push(opener);
    await opener.firstToken;
    // S, the gateway's stream, waits; C joins with it, and the loop holds once C (and S) have
    // HELD_AFTER_TOKENS tokens, until C is released.
    const streaming = postSse(`${gateway.url}${route.path}`, route.body);
    await waitFor(async () => (await waiting()) === 1, { timeoutMs: 10_000 });
    held.push(occupySlot(running, { model: route.model, pause: `${HELD_AFTER_TOKENS}:99` }));
    const stream = await streaming; // the status and headers go out once S has its first token
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    return stream;
  }

  /** Reads `stream` to its end, calling `afterFirst` once its first event came. */
  async function readAll(stream: SseStream, afterFirst: () => void): Promise<SseEvent[]> {
    const events: SseEvent[] = [];
    for await (const event of stream.events) {
      events.push(event);
      if (events.length === 1) afterFirst();
    }
    return events;
  }

  /** The stream's last event is `route`'s error of `code`, after ordinary events only; it ended properly. */
  function expectEndedWithError(
    route: StreamingRoute,
    stream: SseStream,
    events: SseEvent[],
    code: string,
  ): void {
    expect(events.length).toBeGreaterThan(1);
    const last = events.at(-1)!;
    expect(route.isError(last, code), `${last.event}: ${last.data}`).toBe(true);
    for (const event of events.slice(0, -1)) {
      expect(route.isError(event, code), event.data).toBe(false);
      expect(event.event, event.data).toBe('message');
    }
    expect(stream.complete()).toBe(true);
  }

  it.each(ROUTES)(
    '$name: a killed worker ends the stream with an error event in its own shape, and the answer ends properly',
    async (route) => {
      const stream = await heldStream(route);
      // The first event (the tokens' or, for chat, the role's) is out: the worker dies now.
      const events = await readAll(stream, () => worker!.process.child.kill('SIGKILL'));
      expectEndedWithError(route, stream, events, 'UNAVAILABLE');
      expect((await fetch(`${gateway!.url}/health/live`)).status).toBe(200);
    },
  );

  it("a stopped worker (SIGSTOP) ends a chat stream at the endpoint's deadline with OpenAI's error, properly", async () => {
    const chat = ROUTES.find((route) => route.name === 'OpenAI chat completions')!;
    // The deadline only bounds the wait for the stopped worker; it is long enough to get going.
    const stream = await heldStream(chat, 5_000);
    const events = await readAll(stream, () => worker!.process.child.kill('SIGSTOP'));
    expectEndedWithError(chat, stream, events, 'DEADLINE_EXCEEDED');
    expect((await fetch(`${gateway!.url}/health/live`)).status).toBe(200);
  });
});
