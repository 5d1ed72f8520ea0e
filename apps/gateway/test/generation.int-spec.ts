// POST /serve/<endpoint> on a text-generation endpoint, end to end: a real worker running the
// tiny-gpt2 fixture with onnxruntime, a real gateway, and transformers.js as the reference.
// Slots, queue, deadlines and cancellation: generation-limits.int-spec.ts.
import { ensureFixture } from '@modelgate/fixtures';
import {
  type HttpAnswer,
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  transformersGreedy,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SseEvent, postSse } from './support/sse-client.js';

const PROMPT = 'Hello, my name is';
const MODEL = { model: 'gpt', version: '1' };

interface Prediction {
  generated_text: string;
  finish_reason: string;
  prompt_tokens: number;
  generated_tokens: number;
}
interface ServeBody {
  endpoint: string;
  model: string;
  version: string;
  route: string;
  predictions: Prediction[];
}
interface EndData extends Prediction {
  timings: { queue_ms: number; time_to_first_token_ms: number; total_ms: number };
}

const prediction = (answer: HttpAnswer) => (answer.body as ServeBody).predictions[0]!;
const errorOf = (answer: HttpAnswer) => (answer.body as { error: { code: string; message: string } }).error;

describe('gateway: /serve on a text-generation endpoint', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let fixtureDir: string;

  beforeAll(async () => {
    fixtureDir = await ensureFixture('tiny-gpt2');
    ({ worker, gateway } = await startServingPair(
      [
        {
          name: 'gpt',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
        },
      ],
      {
        endpoints: [
          {
            name: 'writer',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
          },
          // Prompts over 3 tokens: their last 3 tokens are kept, or 422 without truncation.
          {
            name: 'short',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 3, truncation: true },
          },
          {
            name: 'strict',
            task: 'text-generation',
            routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 3, truncation: false },
          },
          // A route the registry refuses, as a static config file can still hold it.
          { name: 'raw-gpt', task: 'raw', routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }] },
        ],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const workerMetric = async (name: string) =>
    metricValue(await (await fetch(`${worker.httpUrl}/metrics`)).text(), name, MODEL);
  const gatewayMetrics = async () => (await fetch(`${gateway.url}/metrics`)).text();
  const runningIsZero = async () => (await workerMetric('modelgate_generation_running_sequences')) === 0;

  async function readAll(url: string, body: unknown) {
    const stream = await postSse(url, body);
    const events: SseEvent[] = [];
    for await (const event of stream.events) events.push(event);
    return { stream, events };
  }

  it("answers transformers.js' greedy text, with counts and Server-Timing", async () => {
    const reference = await transformersGreedy(fixtureDir, PROMPT, 12);
    const answer = await gateway.post('/serve/writer', { text: PROMPT, parameters: { max_new_tokens: 12 } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ endpoint: 'writer', model: 'gpt', version: '1', route: 'primary' });
    expect(prediction(answer)).toEqual({
      generated_text: reference.text,
      finish_reason: reference.tokenIds.at(-1) === 50256 ? 'eos' : 'length',
      prompt_tokens: 5,
      generated_tokens: reference.tokenIds.length,
    });
    expect(answer.headers.get('server-timing')).toMatch(/ttft;dur=[\d.]+.*total;dur=[\d.]+/);
    expect(answer.headers.get('x-modelgate-model')).toBe('gpt:1');
  });

  it('prefixes the prompt with return_full_text', async () => {
    const plain = prediction(
      await gateway.post('/serve/writer', { text: PROMPT, parameters: { max_new_tokens: 4 } }),
    );
    const full = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { max_new_tokens: 4, return_full_text: true },
    });
    expect(prediction(full).generated_text).toBe(PROMPT + plain.generated_text);
  });

  it('streams deltas whose concatenation is the JSON answer, then an end event and a Server-Timing trailer', async () => {
    const parameters = { max_new_tokens: 16 };
    const json = prediction(await gateway.post('/serve/writer', { text: PROMPT, parameters }));
    const { stream, events } = await readAll(`${gateway.url}/serve/writer`, {
      text: PROMPT,
      parameters,
      stream: true,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    expect(stream.headers['x-modelgate-model']).toBe('gpt:1');
    const deltas = events
      .slice(0, -1)
      .map((event) => JSON.parse(event.data) as { text: string; token_ids: number[] });
    expect(events.slice(0, -1).every((event) => event.event === 'message')).toBe(true);
    expect(deltas.map((delta) => delta.text).join('')).toBe(json.generated_text);
    expect(deltas.every((delta) => delta.text.length > 0 && delta.token_ids.length > 0)).toBe(true);
    const end = events.at(-1)!;
    expect(end.event).toBe('end');
    const data = JSON.parse(end.data) as EndData;
    expect(data).toMatchObject({ ...json });
    expect(data.timings.time_to_first_token_ms).toBeLessThanOrEqual(data.timings.total_ms);
    expect(stream.trailers()['server-timing']).toMatch(/ttft;dur=.*total;dur=/);
  });

  it('ends the text before a stop string and frees the slot', async () => {
    const parameters = { max_new_tokens: 24 };
    const text = prediction(await gateway.post('/serve/writer', { text: PROMPT, parameters })).generated_text;
    const stop = text.slice(6, 10);
    const answer = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { ...parameters, stop: [stop] },
    });
    expect(prediction(answer)).toMatchObject({
      generated_text: text.slice(0, text.indexOf(stop)),
      finish_reason: 'stop',
    });
    await waitFor(runningIsZero, { timeoutMs: 10_000 });
  });

  it('serves a pinned version, and 404 for one the endpoint does not route', async () => {
    const pinned = await gateway.post('/serve/writer/1', { text: PROMPT, parameters: { max_new_tokens: 2 } });
    expect(pinned.status).toBe(200);
    expect(pinned.body).toMatchObject({ version: '1', route: 'pinned' });
    expect((await gateway.post('/serve/writer/7', { text: PROMPT })).status).toBe(404);
  });

  it('refuses what it cannot do with clear 4xx answers', async () => {
    const tooLong = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { max_new_tokens: 260 },
    });
    expect(tooLong.status).toBe(422);
    expect(errorOf(tooLong).message).toMatch(/must be <= 256/);
    const unknown = await gateway.post('/serve/writer', { text: PROMPT, parameters: { best_of: 2 } });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown).message).toMatch(/best_of/);
    const batch = await gateway.post('/serve/writer', { text: [PROMPT, PROMPT] });
    expect(batch.status).toBe(400);
    // Greedy decoding with sampling parameters is a contradiction, not a silent choice.
    const greedyAndSampled = await gateway.post('/serve/writer', {
      text: PROMPT,
      parameters: { do_sample: false, temperature: 0.7, seed: 1 },
    });
    expect(greedyAndSampled.status).toBe(400);
    expect(errorOf(greedyAndSampled).message).toMatch(
      /temperature, seed are sampling parameters, and do_sample is false/,
    );
  });

  it('answers a raw endpoint routed to the decoder with 503 saying why, and reports it unservable', async () => {
    const raw = await gateway.post('/serve/raw-gpt', { text: PROMPT });
    expect(raw.status).toBe(503);
    expect(errorOf(raw).message).toBe(
      "endpoint 'raw-gpt' routes to model gpt:1: a raw endpoint cannot serve a text-generation model: it " +
        'answers with one model call, and text-generation decodes token by token; bind the model to a ' +
        'text-generation endpoint',
    );
    type Verdicts = { endpoints: Record<string, { ready: boolean; reason?: string }> };
    let verdicts: Verdicts['endpoints'] = {};
    await waitFor(async () => {
      verdicts = ((await (await fetch(`${gateway.url}/health/ready`)).json()) as Verdicts).endpoints;
      return verdicts['raw-gpt'] !== undefined;
    });
    expect(verdicts.writer).toEqual({ ready: true });
    expect(verdicts['raw-gpt']?.ready).toBe(false);
    expect(verdicts['raw-gpt']?.reason).toMatch(
      /^model gpt:1: a raw endpoint cannot serve a text-generation model/,
    );
  });

  it("keeps the prompt's last tokens within the endpoint's maxTokens, or answers 422 without truncation", async () => {
    // "Hello, my name is" → Hello , ␣my ␣name ␣is: the last three are the tokens of " my name is".
    const reference = await transformersGreedy(fixtureDir, ' my name is', 6);
    const cut = await gateway.post('/serve/short', { text: PROMPT, parameters: { max_new_tokens: 6 } });
    expect(cut.status).toBe(200);
    expect(prediction(cut)).toMatchObject({ generated_text: reference.text, prompt_tokens: 3 });
    const refused = await gateway.post('/serve/strict', { text: PROMPT, parameters: { max_new_tokens: 6 } });
    expect(refused.status).toBe(422);
    expect(errorOf(refused).message).toMatch(/5 tokens, more than the endpoint's limit of 3/);

    // /tokenize shows the prompt the model reads: the same last three tokens (it kept the first).
    const tokenized = await gateway.post('/serve/short/tokenize', { text: PROMPT });
    expect(tokenized.status, JSON.stringify(tokenized.body)).toBe(200);
    const whole = await gateway.post('/serve/writer/tokenize', { text: ' my name is' });
    const idsOf = (answer: HttpAnswer) =>
      (answer.body as { predictions: { ids: number[] }[] }).predictions[0]?.ids;
    expect(idsOf(tokenized)).toEqual(idsOf(whole));
    expect((tokenized.body as { predictions: unknown[] }).predictions).toMatchObject([
      {
        tokens: ['Ġmy', 'Ġname', 'Ġis'],
        // Byte-level offsets, spaces trimmed (the fixture's post-processor sets trim_offsets).
        offsets: [
          [7, 9],
          [10, 14],
          [15, 17],
        ],
        sequence_ids: [0, 0, 0],
      },
    ]);
    expect((await gateway.post('/serve/strict/tokenize', { text: PROMPT })).status).toBe(422);
    // One prompt, no pairs: what a generation body takes.
    for (const body of [{ text: [PROMPT, PROMPT] }, { text: PROMPT, text_pair: 'x' }]) {
      expect((await gateway.post('/serve/writer/tokenize', body)).status).toBe(400);
    }
  });

  it('reports time to first token, inter-token latency and generated tokens in /metrics', async () => {
    await gateway.post('/serve/writer', { text: PROMPT, parameters: { max_new_tokens: 3 } });
    const text = await gatewayMetrics();
    const labels = { serving_endpoint: 'writer', ...MODEL };
    expect(
      metricValue(text, 'modelgate_generation_time_to_first_token_seconds_count', labels),
    ).toBeGreaterThan(0);
    expect(
      metricValue(text, 'modelgate_generation_inter_token_latency_seconds_count', labels),
    ).toBeGreaterThan(0);
    expect(metricValue(text, 'modelgate_generated_tokens_total', labels)).toBeGreaterThan(0);
    expect(metricValue(text, 'modelgate_requests_total', { ...labels, code: '200' })).toBeGreaterThan(0);
  });
});
