import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import OpenAI, { BadRequestError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEXTS = ['A café in Zürich.', '東京は大きい 🚀', 'short'];

describe('gateway: OpenAI-compatible POST /v1/embeddings, called with the official openai client', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let client: OpenAI;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
        { name: 'embed-b', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
        { name: 'bert', fixture: 'tiny-bert-sst2' },
      ],
      {
        endpoints: [
          {
            name: 'embedder',
            task: 'feature-extraction',
            routes: [{ model: 'embed:1', weight: 100, role: 'primary' }],
            postprocessing: { pooling: 'mean', normalize: true },
          },
          {
            name: 'split-embedder',
            task: 'feature-extraction',
            routes: [
              { model: 'embed:1', weight: 50, role: 'primary' },
              { model: 'embed-b:1', weight: 50, role: 'canary' },
            ],
          },
          {
            name: 'raw-embedder',
            task: 'feature-extraction',
            routes: [{ model: 'embed:1', weight: 100, role: 'primary' }],
            postprocessing: { pooling: 'mean', normalize: false },
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
        ],
        // Info: the request log lines, which carry OpenAI's `user`.
        gatewayEnv: { GATEWAY_LOG_LEVEL: 'info' },
      },
    ));
    client = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  async function serveEmbeddings(texts: string[]): Promise<number[][]> {
    const answer = await gateway.post('/serve/embedder', { text: texts });
    expect(answer.status).toBe(200);
    return (answer.body as { predictions: { embedding: number[] }[] }).predictions.map((p) => p.embedding);
  }

  it('answers the same embeddings as /serve, in the order given, with token usage', async () => {
    const expected = await serveEmbeddings(TEXTS);
    // The client asks for base64 by default and decodes it: both encodings are exercised.
    const [decoded, floats] = await Promise.all([
      client.embeddings.create({ model: 'embedder', input: TEXTS }),
      client.embeddings.create({ model: 'embedder', input: TEXTS, encoding_format: 'float' }),
    ]);
    for (const answer of [decoded, floats]) {
      expect(answer.object).toBe('list');
      expect(answer.model).toBe('embedder');
      expect(answer.data.map((item) => item.index)).toEqual([0, 1, 2]);
      answer.data.forEach((item, i) => {
        expect(item.embedding).toHaveLength(expected[i]!.length);
        item.embedding.forEach((value, j) => expect(Math.abs(value - expected[i]![j]!)).toBeLessThan(1e-6));
      });
      expect(answer.usage.prompt_tokens).toBeGreaterThan(TEXTS.length * 2); // [CLS] and [SEP] at least
      expect(answer.usage.total_tokens).toBe(answer.usage.prompt_tokens);
    }
    const single = await client.embeddings.create({
      model: 'embedder',
      input: 'short',
      encoding_format: 'float',
    });
    expect(single.data).toHaveLength(1);
    single.data[0]!.embedding.forEach((value, j) =>
      expect(Math.abs(value - expected[2]![j]!)).toBeLessThan(1e-6),
    );
  });

  it("writes OpenAI's end-user id into the request's log line, and nothing for a request without one", async () => {
    const user = `end-user-${process.pid}`;
    const traced = await client.embeddings.create({ model: 'embedder', input: 'x', user }).withResponse();
    const anonymous = await client.embeddings.create({ model: 'embedder', input: 'y' }).withResponse();
    const lineOf = (requestId: string | null) =>
      gateway.process
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"') && line.includes(`"reqId":"${requestId}"`))
        .map((line) => JSON.parse(line) as { user?: string; url: string; status: number });
    const ids = [traced.response.headers.get('x-request-id'), anonymous.response.headers.get('x-request-id')];
    await waitFor(() => ids.every((id) => lineOf(id).length === 1), {
      describe: () => gateway.process.output().slice(-2000),
    });
    expect(lineOf(ids[0]!)).toEqual([expect.objectContaining({ user, url: '/v1/embeddings', status: 200 })]);
    expect(lineOf(ids[1]!)[0]).not.toHaveProperty('user');
  });

  it("keeps a caller on one route of a canary split by the endpoint's sticky header, and names the model", async () => {
    const modelOf = async (headers: Record<string, string>) =>
      (
        await client.embeddings.create({ model: 'split-embedder', input: 'x' }, { headers }).withResponse()
      ).response.headers.get('x-modelgate-model');
    for (const key of ['user-1', 'user-2', 'user-3', 'user-4']) {
      const models = new Set<string | null>();
      for (let i = 0; i < 10; i++) models.add(await modelOf({ 'x-modelgate-route-key': key }));
      expect(models.size, key).toBe(1);
    }
    // Without a key each request is weighed afresh: 40 at 50/50 land on both routes.
    const unkeyed = new Set<string | null>();
    for (let i = 0; i < 40; i++) unkeyed.add(await modelOf({}));
    expect([...unkeyed].sort()).toEqual(['embed-b:1', 'embed:1']);
  });

  it('truncates to `dimensions` and re-normalizes', async () => {
    const [full] = await serveEmbeddings(['short']);
    const answer = await client.embeddings.create({
      model: 'embedder',
      input: 'short',
      dimensions: 8,
      encoding_format: 'float',
    });
    const vector = answer.data[0]!.embedding;
    expect(vector).toHaveLength(8);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    const norm = Math.hypot(...full!.slice(0, 8));
    vector.forEach((value, j) => expect(value).toBeCloseTo(full![j]! / norm, 5));
  });

  it('answers unit-length embeddings where the endpoint leaves normalize unset, as OpenAI does', async () => {
    const served = await gateway.post(
      '/serve/split-embedder',
      { text: 'short' },
      { 'x-modelgate-route-key': 'k' },
    );
    // /serve answers the pooled vector as the endpoint says (not normalized: its norm is far from 1).
    const full = (served.body as { predictions: { embedding: number[] }[] }).predictions[0]!.embedding;
    const norm = Math.hypot(...full);
    expect(Math.abs(norm - 1)).toBeGreaterThan(0.1);
    const answer = await client.embeddings.create(
      { model: 'split-embedder', input: 'short', encoding_format: 'float' },
      { headers: { 'x-modelgate-route-key': 'k' } },
    );
    const vector = answer.data[0]!.embedding;
    expect(Math.hypot(...vector)).toBeCloseTo(1, 5);
    vector.forEach((value, j) => expect(value).toBeCloseTo(full[j]! / norm, 5));
    const shortened = await client.embeddings.create(
      { model: 'split-embedder', input: 'short', dimensions: 8, encoding_format: 'float' },
      { headers: { 'x-modelgate-route-key': 'k' } },
    );
    const shortNorm = Math.hypot(...full.slice(0, 8));
    shortened.data[0]!.embedding.forEach((value, j) => expect(value).toBeCloseTo(full[j]! / shortNorm, 5));
  });

  it('answers the pooled vectors, and only shortens with `dimensions`, where the endpoint opts out (normalize false)', async () => {
    const served = await gateway.post('/serve/raw-embedder', { text: 'short' });
    const full = (served.body as { predictions: { embedding: number[] }[] }).predictions[0]!.embedding;
    const whole = await client.embeddings.create({
      model: 'raw-embedder',
      input: 'short',
      encoding_format: 'float',
    });
    whole.data[0]!.embedding.forEach((value, j) => expect(value).toBeCloseTo(full[j]!, 5));
    const answer = await client.embeddings.create({
      model: 'raw-embedder',
      input: 'short',
      dimensions: 8,
      encoding_format: 'float',
    });
    const vector = answer.data[0]!.embedding;
    expect(vector).toHaveLength(8);
    vector.forEach((value, j) => expect(value).toBeCloseTo(full[j]!, 5));
  });

  it('names the OpenAI field `input` in errors about the texts', async () => {
    const long = await gateway.post('/v1/embeddings', {
      model: 'embedder',
      input: ['ok', 'x'.repeat(200_000)],
    });
    expect(long.status).toBe(413);
    const error = (long.body as { error: { param: string; message: string } }).error;
    expect(error.param).toBe('input[1]');
    expect(error.message).toMatch(/^input\[1\]: /);
  });

  it('answers 400 for a classification endpoint, token-id input or too many dimensions, and 404 for an unknown model', async () => {
    await expect(client.embeddings.create({ model: 'sentiment', input: 'x' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(client.embeddings.create({ model: 'embedder', input: [[101, 102]] })).rejects.toThrow(
      /token-id arrays are not accepted/,
    );
    await expect(
      client.embeddings.create({ model: 'embedder', input: 'x', dimensions: 100_000 }),
    ).rejects.toThrow(/dimensions: 100000 is more than the model's/);
    await expect(client.embeddings.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('counts a failure under the model it was routed to, and under none when it failed before routing', async () => {
    const failures = async () => {
      const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
      const count = (labels: Record<string, string>) =>
        metricValue(metrics, 'modelgate_request_failures_total', labels);
      return {
        // Refused after the model answered: more dimensions than it has.
        routed: count({
          serving_endpoint: 'embedder',
          model: 'embed',
          version: '1',
          reason: 'INVALID_INPUT',
        }),
        // Refused before routing: a classification endpoint, an unknown one.
        wrongTask: count({
          serving_endpoint: 'sentiment',
          model: 'none',
          version: 'none',
          reason: 'INVALID_INPUT',
        }),
        unknown: count({ serving_endpoint: 'unknown', model: 'none', version: 'none', reason: 'NOT_FOUND' }),
      };
    };
    const before = await failures();
    await expect(
      client.embeddings.create({ model: 'embedder', input: 'x', dimensions: 100_000 }),
    ).rejects.toBeInstanceOf(BadRequestError);
    await expect(client.embeddings.create({ model: 'sentiment', input: 'x' })).rejects.toBeInstanceOf(
      BadRequestError,
    );
    await expect(client.embeddings.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({
      status: 404,
    });
    const after = await failures();
    expect(after.routed - before.routed).toBe(1);
    expect(after.wrongTask - before.wrongTask).toBe(1);
    expect(after.unknown - before.unknown).toBe(1);
  });
});
