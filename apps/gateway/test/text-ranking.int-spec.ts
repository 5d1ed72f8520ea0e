// text-ranking and /tokenize through a real gateway process and worker process on the tiny fixtures:
// the answers must be transformers' (its model run on its own pair encodings, sigmoid on the
// logit), all texts of a request must reach the worker as rows of one ModelInfer, and /tokenize
// must answer without calling a worker.
import { dirname } from 'node:path';
import {
  AutoModelForSequenceClassification,
  AutoTokenizer,
  type PreTrainedModel,
  type PreTrainedTokenizer,
  type Tensor,
  env,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { type RunningGateway, type RunningWorker, metricValue, startServingPair } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const QUERY = 'What is the capital of France?';
const TEXTS = [
  'Paris is the capital of France.',
  'Bananas are yellow.',
  'Ça se trouve à Paris, la capitale 🇫🇷',
  '巴黎是法国的首都',
  'emoji 🤗🚀',
];
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(80); // far past 512 tokens

interface Ranked {
  index: number;
  score: number;
  text?: string;
}
interface Tokenized {
  ids: number[];
  tokens: string[];
  offsets: ([number, number] | null)[];
  sequence_ids: (0 | 1 | null)[];
}

env.allowRemoteModels = false;
env.allowLocalModels = true;

describe('gateway: text-ranking and tokenize', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let tokenizer: PreTrainedTokenizer;
  let model: PreTrainedModel;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        {
          name: 'rerank',
          fixture: 'tiny-bert-reranker',
          task: 'text-ranking',
          batching: { maxBatchSize: 16 },
        },
        { name: 'bert', fixture: 'tiny-bert-sst2' },
      ],
      {
        endpoints: [
          {
            name: 'rerank',
            task: 'text-ranking',
            routes: [{ model: 'rerank:1', weight: 100, role: 'primary' }],
            preprocessing: { maxBatchItems: 8, truncation: false },
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 16, truncation: false },
          },
        ],
      },
    ));
    env.localModelPath = dirname(await ensureFixture('tiny-bert-reranker'));
    tokenizer = await AutoTokenizer.from_pretrained('tiny-bert-reranker', { local_files_only: true });
    model = await AutoModelForSequenceClassification.from_pretrained('tiny-bert-reranker', {
      dtype: 'fp32',
      local_files_only: true,
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    await model?.dispose();
  });

  /** transformers' ranking: its model on its own padded pair encodings, sigmoid of each logit. */
  async function referenceRanking(query: string, texts: string[]): Promise<Ranked[]> {
    const inputs = tokenizer(
      texts.map(() => query),
      { text_pair: texts, padding: true, truncation: true },
    );
    const { logits } = (await model(inputs)) as { logits: Tensor };
    const values = Array.from(logits.data as Float32Array);
    return values
      .map((logit, index) => ({ index, score: 1 / (1 + Math.exp(-logit)) }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
  }

  const workerCalls = async (): Promise<number> =>
    metricValue(await worker.metrics(), 'modelgate_inference_requests_total', {
      model: 'rerank',
      status: 'ok',
    });

  it('ranks the texts like transformers, in one ModelInfer of a row per text', async () => {
    const before = await workerCalls();
    const answer = await gateway.post('/serve/rerank', { query: QUERY, texts: TEXTS });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get('x-modelgate-model')).toBe('rerank:1');
    const body = answer.body as { endpoint: string; model: string; predictions: Ranked[] };
    expect(body).toMatchObject({ endpoint: 'rerank', model: 'rerank' });
    const expected = await referenceRanking(QUERY, TEXTS);
    expect(body.predictions.map((r) => r.index)).toEqual(expected.map((r) => r.index));
    body.predictions.forEach((ranked, i) =>
      expect(Math.abs(ranked.score - (expected[i]?.score ?? NaN))).toBeLessThan(1e-4),
    );
    expect(await workerCalls()).toBe(before + 1);
    const batchRows = metricValue(await worker.metrics(), 'modelgate_batch_size_sum', { model: 'rerank' });
    expect(batchRows).toBeGreaterThanOrEqual(TEXTS.length);
  });

  it('answers top_n with the texts, and raw logits', async () => {
    const expected = await referenceRanking(QUERY, TEXTS);
    const top = await gateway.post('/serve/rerank', {
      query: QUERY,
      texts: TEXTS,
      top_n: 2,
      return_text: true,
    });
    expect(top.status).toBe(200);
    const predictions = (top.body as { predictions: Ranked[] }).predictions;
    expect(predictions.map((r) => [r.index, r.text])).toEqual(
      expected.slice(0, 2).map((r) => [r.index, TEXTS[r.index]]),
    );
    const raw = await gateway.post('/serve/rerank', { query: QUERY, texts: TEXTS, raw_scores: true });
    const logits = (raw.body as { predictions: Ranked[] }).predictions;
    logits.forEach((ranked, i) => {
      const probability = expected[i]?.score ?? NaN;
      expect(Math.abs(ranked.score - Math.log(probability / (1 - probability)))).toBeLessThan(1e-3);
    });
  });

  it('refuses what it cannot rank, naming the field', async () => {
    const cases: [unknown, number, string][] = [
      [{ text: 'x' }, 400, 'query: is required'],
      [{ query: 'q', texts: ['a'], truncation_direction: 'Left' }, 400, "only 'Right' is supported"],
      [{ query: 'q', texts: Array.from({ length: 9 }, () => 'a') }, 413, 'more than the limit of 8'],
      [{ query: 'q', texts: ['short', LONG] }, 422, 'texts[1] has'],
    ];
    for (const [body, status, message] of cases) {
      const answer = await gateway.post('/serve/rerank', body);
      expect(answer.status, JSON.stringify(answer.body)).toBe(status);
      expect((answer.body as { error: { message: string } }).error.message).toContain(message);
    }
    const truncated = await gateway.post('/serve/rerank', {
      query: 'q',
      texts: ['short', LONG],
      truncate: true,
    });
    expect(truncated.status).toBe(200);
    expect((truncated.body as { predictions: Ranked[] }).predictions).toHaveLength(2);
  });

  it('tokenizes a pair as the model reads it, without calling a worker', async () => {
    const before = await workerCalls();
    const answer = await gateway.post('/serve/rerank/tokenize', { text: QUERY, text_pair: TEXTS[2] });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.headers.get('x-modelgate-model')).toBe('rerank:1');
    const [tokenized] = (answer.body as { predictions: Tokenized[] }).predictions;
    const reference = tokenizer(QUERY, { text_pair: TEXTS[2], return_tensor: false }) as {
      input_ids: number[];
    };
    expect(tokenized?.ids).toEqual(reference.input_ids);
    expect(tokenized?.tokens).toEqual(
      tokenizer.tokenize(QUERY, { pair: TEXTS[2], add_special_tokens: true }),
    );
    expect(tokenized?.tokens.slice(0, 3)).toEqual(['[CLS]', 'what', 'is']);
    expect(tokenized?.offsets.slice(0, 3)).toEqual([null, [0, 4], [5, 7]]);
    expect(tokenized?.sequence_ids.at(-2)).toBe(1);
    expect(await workerCalls()).toBe(before);
  });

  it('tokenizes with the endpoint’s limit and truncation, and without special tokens on request', async () => {
    const text =
      'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen';
    const cut = await gateway.post('/serve/sentiment/tokenize', {
      text: [text, 'hi'],
      parameters: { truncation: true },
    });
    expect(cut.status).toBe(200);
    const [long, short] = (cut.body as { predictions: Tokenized[] }).predictions;
    expect(long?.ids).toHaveLength(16);
    expect(long?.tokens.at(-1)).toBe('[SEP]');
    expect(short?.tokens).toEqual(['[CLS]', 'hi', '[SEP]']);
    const bare = await gateway.post('/serve/sentiment/tokenize', { text: 'hi', add_special_tokens: false });
    expect((bare.body as { predictions: Tokenized[] }).predictions).toEqual([
      { ids: [7632], tokens: ['hi'], offsets: [[0, 2]], sequence_ids: [0] },
    ]);
    const refused = await gateway.post('/serve/sentiment/tokenize', { text });
    expect(refused.status).toBe(422);
    expect((await gateway.post('/serve/nope/tokenize', { text: 'x' })).status).toBe(404);
    const unknown = await gateway.post('/serve/sentiment/tokenize', { text: 'x', parameters: { top_k: 1 } });
    expect(unknown.status).toBe(400);
  });
});
