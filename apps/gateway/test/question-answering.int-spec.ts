// question-answering through a real gateway and worker (tiny-bert-squad): answers with offsets into
// the context, long contexts as windows of 64 tokens, each request one ModelInfer carrying all its
// windows, and the windows of concurrent requests merged into one batch by the worker's batcher.
import { encodeQuestions, loadTokenizerFromDir, parseQuestionAnsweringRequest } from '@modelgate/processing';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  tokenInferRequest,
  tokenRows,
  waitFor,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';
const MODEL = { model: 'squad', version: '1' };
const OK = { ...MODEL, status: 'ok' };
const WORDS = ['Berlin', 'café', 'naïve', 'river', 'mountain', 'Zürich', '東京', 'rocket', '🚀', 'garden'];
// About 165 tokens: several windows of 64 tokens (stride 32) beside a short question.
const LONG = Array.from({ length: 150 }, (_, i) => WORDS[i % WORDS.length]).join(' ');
// The histogram buckets of modelgate_batch_size.
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128];

interface Answer {
  answer: string;
  score: number;
  start: number;
  end: number;
}

function codePoints(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

describe('gateway: question-answering', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  /** Rows (windows) the gateway builds for `question` about LONG, computed with the same tokenizer. */
  let windowsOf: (question: string) => number;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        {
          name: 'squad',
          fixture: 'tiny-bert-squad',
          task: 'question-answering',
          batching: { maxBatchSize: 32, maxQueueDelayMicros: 0 },
        },
      ],
      {
        endpoints: [
          {
            name: 'qa',
            task: 'question-answering',
            routes: [{ model: 'squad:1', weight: 100, role: 'primary' }],
            preprocessing: { maxTokens: 64 },
          },
        ],
      },
    ));
    const tokenizer = await loadTokenizerFromDir(await ensureFixture('tiny-bert-squad'));
    windowsOf = (question) =>
      encodeQuestions({
        request: parseQuestionAnsweringRequest(
          { question, context: LONG },
          { maxInputChars: 1e5, maxBatchItems: 8 },
        ),
        tokenizer,
        inputNames: ['input_ids', 'attention_mask', 'token_type_ids'],
        maxTokens: 64,
      }).lengths.length;
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  async function ask(body: unknown): Promise<Answer[][]> {
    const answer = await gateway.post('/serve/qa', body);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body as { predictions: Answer[][] }).predictions;
  }

  it('answers spans of the context with code-point offsets, top_k of them best first', async () => {
    const context = 'My name is Wolfgang and I live in Berlin, near the café 🚀 東京';
    const [answers = []] = await ask({ question: 'Where do I live?', context, parameters: { top_k: 3 } });
    expect(answers).toHaveLength(3);
    for (const answer of answers) {
      expect(codePoints(context, answer.start, answer.end)).toBe(answer.answer);
      expect(answer.score).toBeGreaterThan(0);
      expect(answer.score).toBeLessThanOrEqual(1);
    }
    expect(answers.map((a) => a.score)).toEqual([...answers.map((a) => a.score)].sort((a, b) => b - a));
  });

  it('answers a long context in one ModelInfer whose windows are its rows, offsets into the whole context', async () => {
    const before = await worker.metrics();
    const [answers = []] = await ask({ question: 'Which one?', context: LONG, parameters: { top_k: 2 } });
    const after = await worker.metrics();
    const calls = (text: string) => metricValue(text, 'modelgate_inference_requests_total', OK);
    const rows = (text: string) => metricValue(text, 'modelgate_batch_size_sum', MODEL);
    expect(windowsOf('Which one?')).toBeGreaterThanOrEqual(4);
    expect(calls(after) - calls(before)).toBe(1);
    expect(rows(after) - rows(before)).toBe(windowsOf('Which one?'));
    for (const answer of answers) expect(codePoints(LONG, answer.start, answer.end)).toBe(answer.answer);
  });

  it('refuses, before building them, more windows than the model takes in one request', async () => {
    // A stride one short of a window's context advances one token per window: one row per token.
    const context = `${LONG} ${LONG} ${LONG}`;
    const refused = await gateway.post('/serve/qa', {
      question: 'Which one?',
      context,
      parameters: { doc_stride: 57 },
    });
    expect(refused.status).toBe(413);
    expect((refused.body as { error: { message: string } }).error.message).toMatch(
      /^context: the contexts split into at least \d+ windows of 64 tokens \(doc_stride 57\), more than the 256 rows the model takes in one request/,
    );
    // The same context at the default stride fits.
    expect((await ask({ question: 'Which one?', context })).length).toBe(1);
  });

  it('refuses /tokenize, whose single tokenization is not the windows the model reads', async () => {
    const refused = await gateway.post('/serve/qa/tokenize', { text: 'Which one?', text_pair: LONG });
    expect(refused.status).toBe(400);
    expect((refused.body as { error: { message: string } }).error.message).toMatch(
      /^endpoint qa has no tokenization to show: its model squad:1 is question-answering, which reads each question and context as windows/,
    );
  });

  it('merges the windows of concurrent requests into one batch and answers each as it does alone', async () => {
    const questions = ['Which one?', 'Where is the river?', 'What flies?'];
    const alone: (Answer[] | undefined)[] = [];
    for (const question of questions) alone.push((await ask({ question, context: LONG }))[0]);

    // A batch over the first bucket that holds any one request's rows holds rows of several requests.
    const most = Math.max(...questions.map(windowsOf));
    const bucket = BATCH_BUCKETS.find((size) => size >= most) ?? 128;
    const before = await worker.metrics();
    const batchesOverBucket = (text: string) =>
      metricValue(text, 'modelgate_batch_size_count', MODEL) -
      metricValue(text, 'modelgate_batch_size_bucket', { ...MODEL, le: String(bucket) });
    // Keep the model's one instance busy, so the requests' windows queue together behind it.
    const held = worker.client.call('ModelInfer', tokenInferRequest('squad', tokenRows(1, 9, 6, 6)), {
      metadata: { [HOLD]: '3000' },
    });
    const started = metricValue(before, 'modelgate_batch_size_count', MODEL) + 1;
    await waitFor(
      async () => metricValue(await worker.metrics(), 'modelgate_batch_size_count', MODEL) >= started,
      {
        timeoutMs: 10_000,
      },
    );
    const together = await Promise.all(questions.map((question) => ask({ question, context: LONG })));
    await held;
    const after = await worker.metrics();

    // Every window ran once (the gateway may send the requests as one merged ModelInfer).
    const rowsOf = (text: string) => metricValue(text, 'modelgate_batch_size_sum', MODEL);
    const windows = questions.reduce((sum, question) => sum + windowsOf(question), 0);
    expect(rowsOf(after) - rowsOf(before)).toBe(windows + 1);
    expect(batchesOverBucket(after) - batchesOverBucket(before)).toBeGreaterThanOrEqual(1);
    together.forEach(([answers], i) => {
      expect(answers?.map((a) => [a.answer, a.start, a.end])).toEqual(
        alone[i]?.map((a) => [a.answer, a.start, a.end]),
      );
      expect(Math.abs((answers?.[0]?.score ?? NaN) - (alone[i]?.[0]?.score ?? NaN))).toBeLessThan(1e-5);
    });
  });

  it('answers a batch of pairs in order, one question asked of every context', async () => {
    const contexts = ['The cat sat on the mat.', 'Paris is in France.', LONG];
    const batch = await ask({ question: 'Where?', context: contexts });
    expect(batch).toHaveLength(3);
    for (const [i, context] of contexts.entries()) {
      const [alone = []] = await ask({ question: 'Where?', context });
      expect(batch[i]?.map((a) => a.answer)).toEqual(alone.map((a) => a.answer));
    }
  });

  it('adds the null answer when handle_impossible_answer is on', async () => {
    const [answers = []] = await ask({
      question: 'Who?',
      context: 'Nobody here.',
      parameters: { top_k: 10, handle_impossible_answer: true },
    });
    const nullAnswer = answers.find((a) => a.answer === '');
    expect(nullAnswer).toMatchObject({ start: 0, end: 0 });
    expect(nullAnswer?.score).toBeGreaterThan(0);
  });

  it.each([
    [{ question: 'Where?', context: '' }, 'context', 'must not be empty'],
    [{ question: ['a', 'b'], context: ['x'] }, 'context', 'holds 1 contexts but question holds 2'],
    [
      { question: 'a', context: LONG, parameters: { doc_stride: 60 } },
      'parameters.doc_stride',
      'must be less than',
    ],
    [
      { question: 'a', context: 'b', parameters: { truncation: true } },
      'parameters.truncation',
      'not a known field',
    ],
    [{ text: 'a' }, 'question', 'is required'],
  ])('refuses %j naming %s', async (body, field, message) => {
    const answer = await gateway.post('/serve/qa', body);
    expect(answer.status).toBe(400);
    const error = (answer.body as { error: { code: string; message: string; field?: string } }).error;
    expect(error.code).toBe('INVALID_ARGUMENT');
    expect(error.message).toContain(field);
    expect(error.message).toContain(message);
  });
});
