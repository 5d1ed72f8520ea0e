// /serve generation under pressure, end to end (real worker, real gateway): the queue-full and
// deadline answers, an error after the first token, and a client that goes away. The worker's
// generation-pause test hook holds its decode loop, so nothing here races the model's speed.
import {
  type HttpAnswer,
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OccupiedSlot, occupySlot } from './support/generation-pause.js';
import { type SseEvent, postSse } from './support/sse-client.js';

const PROMPT = 'Hello, my name is';

const errorOf = (answer: HttpAnswer) => (answer.body as { error: { code: string; message: string } }).error;

describe('gateway: /serve generation with full slots, deadlines and clients that go away', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        // One slot and one waiting place: the queue-full and deadline cases fill them.
        {
          name: 'gpt',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
          batching: { maxBatchSize: 1, maxQueueSize: 1 },
        },
        // Two slots: a paused direct call can freeze a gateway stream in the same batch.
        {
          name: 'gpt',
          version: '2',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
          batching: { maxBatchSize: 2 },
        },
        // Three slots: a gateway stream and two direct calls that hold the loop around it.
        {
          name: 'gpt',
          version: '3',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
          batching: { maxBatchSize: 3 },
        },
        // A short default deadline, which a generation's own default outgrows with max_new_tokens.
        {
          name: 'gpt',
          version: '4',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
          batching: { maxBatchSize: 2, defaultTimeoutMs: 300 },
        },
      ],
      {
        endpoints: [
          {
            name: 'writer',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'hurry',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
            timeoutMs: 400,
          },
          {
            name: 'paused',
            task: 'text-generation',
            routes: [{ model: 'gpt:2', weight: 100, role: 'primary' }],
            timeoutMs: 1500,
          },
          {
            name: 'held',
            task: 'text-generation',
            routes: [{ model: 'gpt:3', weight: 100, role: 'primary' }],
          },
          {
            name: 'long',
            task: 'text-generation',
            routes: [{ model: 'gpt:4', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const workerMetric = async (name: string, labels: Record<string, string> = {}, version = '1') =>
    metricValue(await (await fetch(`${worker.httpUrl}/metrics`)).text(), name, {
      model: 'gpt',
      version,
      ...labels,
    });

  const occupy = (version = '1', pause = '1:99', maxNewTokens = 50, deadlineMs?: number) =>
    occupySlot(worker, { version, pause, maxNewTokens, ...(deadlineMs === undefined ? {} : { deadlineMs }) });

  it('cancels the worker sequence when the client goes away mid-stream, and frees its slot', async () => {
    const requests = async (status: string) =>
      workerMetric('modelgate_generation_requests_total', { status }, '3');
    const cancelledBefore = await requests('cancelled');
    const okBefore = await requests('ok');
    // A: two tokens at most; after its first, the loop holds until two sequences wait.
    const opener = occupy('3', '1:2', 2);
    await opener.firstToken;
    // S, the gateway's stream, waits; then C joins with it and holds the loop after one token each.
    const streaming = postSse(`${gateway.url}/serve/held`, {
      text: PROMPT,
      parameters: { max_new_tokens: 200 },
      stream: true,
    });
    await waitFor(async () => (await workerMetric('modelgate_generation_waiting_sequences', {}, '3')) === 1, {
      timeoutMs: 10_000,
    });
    const holder = occupy('3');
    const stream = await streaming; // the headers come once S has its first token
    expect(stream.status).toBe(200);
    await holder.firstToken;
    stream.hangUp();
    const gatewayCancelled = async () =>
      metricValue(await (await fetch(`${gateway.url}/metrics`)).text(), 'modelgate_generations_total', {
        serving_endpoint: 'held',
        model: 'gpt',
        version: '3',
        finish_reason: 'cancelled',
      });
    await waitFor(async () => (await gatewayCancelled()) === 1, { timeoutMs: 10_000 });
    // The loop resumes: S and C leave cancelled, A ends with its second token.
    holder.release();
    await waitFor(async () => (await workerMetric('modelgate_generation_running_sequences', {}, '3')) === 0, {
      timeoutMs: 10_000,
    });
    await waitFor(async () => (await requests('cancelled')) - cancelledBefore === 2, { timeoutMs: 10_000 });
    expect((await requests('ok')) - okBefore).toBe(1);
  });

  it('answers 429 with Retry-After when the slot and the queue are taken', async () => {
    const occupant = occupy();
    await occupant.firstToken;
    const waiting = gateway.post('/serve/writer', { text: PROMPT, parameters: { max_new_tokens: 2 } });
    await waitFor(async () => (await workerMetric('modelgate_generation_waiting_sequences')) === 1, {
      timeoutMs: 10_000,
    });
    const refused = await gateway.post('/serve/writer', { text: PROMPT, stream: true });
    expect(refused.status).toBe(429);
    expect(errorOf(refused).code).toBe('QUEUE_FULL');
    expect(refused.headers.get('retry-after')).toBe('1');
    occupant.release();
    expect((await waiting).status).toBe(200);
  });

  it("answers 504 when the endpoint's deadline passes while the request waits for a slot", async () => {
    const occupant = occupy();
    await occupant.firstToken;
    const answer = await gateway.post('/serve/hurry', { text: PROMPT });
    occupant.release();
    expect(answer.status).toBe(504);
    expect(errorOf(answer).code).toBe('DEADLINE_EXCEEDED');
  });

  it('ends a stream that fails after its first token with an error event of the error table', async () => {
    const stream = await postSse(`${gateway.url}/serve/paused`, {
      text: PROMPT,
      parameters: { max_new_tokens: 240 },
      stream: true,
    });
    expect(stream.status).toBe(200);
    const events: SseEvent[] = [];
    let occupant: OccupiedSlot | undefined;
    for await (const event of stream.events) {
      events.push(event);
      // Joins the running batch and pauses its loop: the stream stops until its deadline passes.
      occupant ??= occupy('2');
    }
    occupant?.release();
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toMatchObject({ error: { code: 'DEADLINE_EXCEEDED' } });
    expect(events.slice(0, -1).every((event) => event.event === 'message')).toBe(true);
  });

  it("gives a generation without an endpoint deadline the model's defaultTimeoutMs plus time for each token it may take", async () => {
    // The loop holds while the requests wait (the occupant's own deadline is far off). The one of
    // 100 tokens has 300 ms + 100 × 50 ms; one of a single token, sent after it, has 350 ms and is
    // answered 504 while the first still waits.
    const occupant = occupy('4', '1:99', 50, 60_000);
    await occupant.firstToken;
    const settled: string[] = [];
    const answer = gateway
      .post('/serve/long', { text: PROMPT, parameters: { max_new_tokens: 100 } })
      .finally(() => settled.push('long'));
    await waitFor(async () => (await workerMetric('modelgate_generation_waiting_sequences', {}, '4')) === 1, {
      timeoutMs: 10_000,
    });
    const brief = await gateway.post('/serve/long', { text: PROMPT, parameters: { max_new_tokens: 1 } });
    settled.push('brief');
    expect(brief.status).toBe(504);
    expect(errorOf(brief).code).toBe('DEADLINE_EXCEEDED');
    // The long one waited past the model's 300 ms too, and is still waiting.
    expect(settled).toEqual(['brief']);
    occupant.release();
    const served = await answer;
    expect(served.status).toBe(200);
  });
});
