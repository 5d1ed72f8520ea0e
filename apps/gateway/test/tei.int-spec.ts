// TEI's routes through a real gateway process and worker process on the tiny fixtures. The
// oracles are @huggingface/transformers: its feature-extraction pipeline (embeddings), its
// tokenizer (tokenize, decode), its text-classification pipeline and the classifier's own logits
// (predict); /rerank is /serve's text-ranking, whose parity with transformers
// text-ranking.int-spec.ts holds. TEI's maintained JS client (@huggingface/inference) calls /embed.
import { dirname } from 'node:path';
import { InferenceClient } from '@huggingface/inference';
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  type Tensor,
  env,
  pipeline,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { type RunningGateway, type RunningWorker, metricValue, startServingPair } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEXTS = ['A café in Zürich.', 'I love this movie!', 'short'];
const TOLERANCE = 1e-4;

interface TeiError {
  error: string;
  error_type: string;
}
interface Label {
  score: number;
  label: string;
}

env.allowRemoteModels = false;
env.allowLocalModels = true;

async function fromFixture<T>(fixture: string, load: () => Promise<T>): Promise<T> {
  env.localModelPath = dirname(await ensureFixture(fixture));
  return load();
}

function expectClose(actual: number[], expected: number[]): void {
  expect(actual).toHaveLength(expected.length);
  actual.forEach((value, i) => expect(Math.abs(value - (expected[i] ?? NaN))).toBeLessThan(TOLERANCE));
}

describe('gateway: TEI-compatible routes', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'embed', fixture: 'tiny-bert-embedder', task: 'feature-extraction' },
        { name: 'bert', fixture: 'tiny-bert-sst2' },
        { name: 'rerank', fixture: 'tiny-bert-reranker', task: 'text-ranking' },
      ],
      {
        endpoints: [
          {
            name: 'embedder',
            task: 'feature-extraction',
            routes: [{ model: 'embed:1', weight: 100, role: 'primary' }],
            // TEI normalizes unless asked not to, whatever the endpoint does for /serve.
            postprocessing: { pooling: 'mean', normalize: false },
            preprocessing: { maxBatchItems: 4 },
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 16, truncation: false },
          },
          {
            name: 'limited',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
            preprocessing: { maxBatchItems: 4 },
          },
          {
            name: 'ranker',
            task: 'text-ranking',
            routes: [{ model: 'rerank:1', weight: 100, role: 'primary' }],
          },
        ],
        gatewayEnv: { GATEWAY_TEI_DEFAULT_ENDPOINT: 'embedder,predict=sentiment,rerank=ranker' },
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${gateway.url}${path}`, { headers });
    const body: unknown = await response.json();
    return { status: response.status, body };
  };

  it('embeds as the pipeline does: mean-pooled, unit length by default, raw on request, cut to `dimensions`', async () => {
    const extractor = await fromFixture('tiny-bert-embedder', () =>
      pipeline('feature-extraction', 'tiny-bert-embedder', { dtype: 'fp32', local_files_only: true }),
    );
    const unit = (await extractor(TEXTS, { pooling: 'mean', normalize: true })).tolist() as number[][];
    const raw = (await extractor(TEXTS, { pooling: 'mean', normalize: false })).tolist() as number[][];
    await extractor.dispose();

    const answer = await gateway.post('/embed', { inputs: TEXTS });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get('x-modelgate-model')).toBe('embed:1');
    const vectors = answer.body as number[][];
    vectors.forEach((vector, i) => expectClose(vector, unit[i] ?? []));

    const single = await gateway.post('/embed', { inputs: TEXTS[0], normalize: false });
    expect((single.body as number[][]).length).toBe(1);
    expectClose((single.body as number[][])[0] ?? [], raw[0] ?? []);

    const cut = await gateway.post('/embed', { inputs: TEXTS[1], dimensions: 8 });
    const shortened = (cut.body as number[][])[0] ?? [];
    expect(shortened).toHaveLength(8);
    expect(Math.abs(Math.hypot(...shortened) - 1)).toBeLessThan(1e-6);
    const head = (raw[1] ?? []).slice(0, 8);
    expectClose(
      shortened,
      head.map((v) => v / Math.hypot(...head)),
    );
  });

  it("answers every token's vector on /embed_all, as the pipeline's unpooled output", async () => {
    const extractor = await fromFixture('tiny-bert-embedder', () =>
      pipeline('feature-extraction', 'tiny-bert-embedder', { dtype: 'fp32', local_files_only: true }),
    );
    const expected = (await extractor(TEXTS[0] ?? '', { pooling: 'none' })).tolist() as number[][][];
    await extractor.dispose();
    const answer = await gateway.post('/embed_all', { inputs: [TEXTS[0], TEXTS[2]], model: 'embedder' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [first, second] = answer.body as number[][][];
    const tokens = expected[0] ?? [];
    expect(first).toHaveLength(tokens.length);
    first?.forEach((vector, t) => expectClose(vector, tokens[t] ?? []));
    expect(second).toHaveLength(3); // [CLS] short [SEP]: padding left out
  });

  it('is called by TEI’s JS client, @huggingface/inference, at /embed', async () => {
    const client = new InferenceClient('unused').endpoint(`${gateway.url}/embed`);
    const output = await client.featureExtraction({ inputs: 'A café in Zürich.' });
    const direct = await gateway.post('/embed', { inputs: 'A café in Zürich.' });
    expect(output).toEqual(direct.body);
  });

  it('predicts every label like the pipeline, pairs and mixed batches too, and the logits with raw_scores', async () => {
    const classifier = await fromFixture('tiny-bert-sst2', () =>
      pipeline('text-classification', 'tiny-bert-sst2', { dtype: 'fp32', local_files_only: true }),
    );
    const expected = (await classifier(TEXTS[1] ?? '', { top_k: null })) as unknown as Label[];
    await classifier.dispose();
    const one = await gateway.post('/predict', { inputs: TEXTS[1] });
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    const labels = one.body as Label[];
    expect(labels.map((l) => l.label)).toEqual(expected.map((l) => l.label));
    expectClose(
      labels.map((l) => l.score),
      expected.map((l) => l.score),
    );

    const tokenizer = await fromFixture('tiny-bert-sst2', () =>
      AutoTokenizer.from_pretrained('tiny-bert-sst2', { local_files_only: true }),
    );
    const model = await AutoModelForSequenceClassification.from_pretrained('tiny-bert-sst2', {
      dtype: 'fp32',
      local_files_only: true,
    });
    const logitsOf = async (text: string, pair?: string): Promise<number[]> => {
      const inputs = tokenizer(text, pair === undefined ? {} : { text_pair: pair });
      return Array.from(((await model(inputs)) as { logits: Tensor }).logits.data as Float32Array);
    };
    const [single, paired] = [await logitsOf('good'), await logitsOf('good', 'bad')];
    await model.dispose();

    const batch = await gateway.post('/predict', { inputs: [['good'], ['good', 'bad']], raw_scores: true });
    expect(batch.status, JSON.stringify(batch.body)).toBe(200);
    const [first, second] = batch.body as Label[][];
    const byLabel = (answer: Label[] | undefined) =>
      [...(answer ?? [])].sort((a, b) => a.label.localeCompare(b.label)).map((l) => l.score);
    expectClose(byLabel(first), single); // NEGATIVE, POSITIVE: the logits by index
    expectClose(byLabel(second), paired);
    expect((first ?? [])[0]?.score).toBeGreaterThanOrEqual((first ?? [])[1]?.score ?? Infinity);
    const pair = await gateway.post('/predict', { inputs: ['good', 'bad'], raw_scores: true });
    expect(byLabel(pair.body as Label[])).toEqual(byLabel(second));
  });

  it('reranks as /serve does on the text-ranking endpoint, best first', async () => {
    const body = { query: 'What is the capital of France?', texts: ['Bananas.', 'Paris is the capital.'] };
    const [tei, serve] = await Promise.all([
      gateway.post('/rerank', { ...body, return_text: true }),
      gateway.post('/serve/ranker', { ...body, return_text: true }),
    ]);
    expect(tei.status, JSON.stringify(tei.body)).toBe(200);
    expect(tei.body).toEqual((serve.body as { predictions: unknown[] }).predictions);
    const ranks = tei.body as { index: number; score: number; text: string }[];
    expect(ranks.map((r) => r.text).sort()).toEqual([...body.texts].sort());
    expect(ranks[0]?.score).toBeGreaterThanOrEqual(ranks[1]?.score ?? Infinity);
  });

  it('tokenizes with TEI’s token shape and decodes as the tokenizer does', async () => {
    const tokenizer = await fromFixture('tiny-bert-embedder', () =>
      AutoTokenizer.from_pretrained('tiny-bert-embedder', { local_files_only: true }),
    );
    const text = TEXTS[0] ?? '';
    const answer = await gateway.post('/tokenize', { inputs: text }, { 'x-modelgate-endpoint': 'embedder' });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const [tokens = []] = answer.body as {
      id: number;
      text: string;
      special: boolean;
      start: number;
      stop: number;
    }[][];
    expect(tokens.map((t) => t.id)).toEqual(tokenizer.encode(text));
    expect(tokens[0]).toEqual({ id: tokens[0]?.id, text: '[CLS]', special: true, start: null, stop: null });
    const bytes = Buffer.from(text);
    for (const token of tokens.filter((t) => !t.special)) {
      expect(bytes.subarray(token.start, token.stop).toString()).toBe(token.text);
    }
    const bare = await gateway.post('/tokenize', { inputs: ['short'], add_special_tokens: false });
    expect((bare.body as { text: string }[][])[0]?.map((t) => t.text)).toEqual(['short']);

    const ids = tokenizer.encode(text);
    const decoded = await gateway.post('/decode', { ids: [ids, ids], skip_special_tokens: false });
    expect(decoded.status, JSON.stringify(decoded.body)).toBe(200);
    const withSpecials = tokenizer.decode(ids, {
      skip_special_tokens: false,
      clean_up_tokenization_spaces: false,
    });
    expect(decoded.body).toEqual([withSpecials, withSpecials]);
    const plain = await gateway.post('/decode', { ids });
    expect(plain.body).toEqual([
      tokenizer.decode(ids, { skip_special_tokens: true, clean_up_tokenization_spaces: false }),
    ]);
    const unknown = await gateway.post('/decode', { ids: [1, 10_000_000] });
    expect(unknown.status).toBe(422);
    expect((unknown.body as TeiError).error_type).toBe('Validation');
    expect((unknown.body as TeiError).error).toContain('ids[1]');
  });

  it("describes each endpoint on /info as TEI's model types", async () => {
    const embedder = await get('/info');
    expect(embedder.status).toBe(200);
    expect(embedder.body).toMatchObject({
      model_id: 'embed:1',
      served_model_name: 'embedder',
      model_type: { embedding: { pooling: 'mean' } },
      max_client_batch_size: 4,
    });
    const sentiment = await get('/info', { 'x-modelgate-endpoint': 'sentiment' });
    expect(sentiment.body).toMatchObject({
      model_type: { classifier: { id2label: { 0: 'NEGATIVE', 1: 'POSITIVE' } } },
      max_input_length: 16,
      auto_truncate: false,
    });
    const ranker = await get('/info', { 'x-modelgate-endpoint': 'ranker' });
    expect(ranker.body).toMatchObject({ model_type: { reranker: {} } });
  });

  it("answers TEI's error shape and statuses, and counts the requests", async () => {
    const cases: [string, unknown, number, string, string][] = [
      ['/embed', { inputs: [] }, 400, 'Empty', '`inputs` cannot be empty'],
      ['/rerank', { query: 'q', texts: [] }, 400, 'Empty', '`texts` cannot be empty'],
      [
        '/embed',
        { inputs: 'a', model: 'sentiment' },
        422,
        'Validation',
        '/embed needs a feature-extraction endpoint',
      ],
      ['/embed', { inputs: 'a', model: 'nope' }, 404, 'Validation', "'nope'"],
      ['/embed', { inputs: ['a', 'b', 'c', 'd', 'e'] }, 422, 'Validation', 'more than the limit of 4'],
      ['/embed', { inputs: 'a', truncation_direction: 'Left' }, 422, 'Validation', 'Left is not supported'],
      ['/embed', { inputs: [[101, 102]] }, 422, 'Validation', 'token ids are not accepted'],
      [
        '/predict',
        {
          inputs: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
        },
        422,
        'Validation',
        'tokens',
      ],
      ['/predict', { inputs: 'x', top_k: 1 }, 422, 'Validation', 'top_k: is not a known field'],
      [
        '/predict',
        { inputs: [['a'], ['b'], ['c'], ['d', 'e'], ['f', 'g']], model: 'limited' },
        422,
        'Validation',
        'inputs: holds 5 texts, more than the limit of 4',
      ],
      ['/embed', { inputs: 'a', dimensions: 4096 }, 422, 'Validation', 'dimensions: 4096'],
    ];
    for (const [path, body, status, type, message] of cases) {
      const answer = await gateway.post(path, body);
      expect(answer.status, `${path} ${JSON.stringify(body)} → ${JSON.stringify(answer.body)}`).toBe(status);
      const { error, error_type: errorType, ...rest } = answer.body as TeiError;
      expect([errorType, rest]).toEqual([type, {}]);
      expect(error).toContain(message);
    }
    const truncated = await gateway.post('/predict', {
      inputs: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen',
      truncate: true,
    });
    expect(truncated.status).toBe(200);
    const metrics = await (await fetch(`${gateway.url}/metrics`)).text();
    expect(
      metricValue(metrics, 'modelgate_requests_total', { serving_endpoint: 'embedder', code: '200' }),
    ).toBeGreaterThanOrEqual(3);
  });
});
