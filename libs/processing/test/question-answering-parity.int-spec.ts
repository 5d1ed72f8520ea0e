// question-answering end to end in-process (parseServeRequest → encodeQuestions → onnxruntime →
// answerQuestions) on tiny-bert-squad. transformers.js' pipeline('question-answering') is the
// oracle where it implements what Python's does: contexts within one window, top_k, answers as the
// span's decoded tokens with score start × end probability. It has no windows (it truncates), no
// doc_stride, max_answer_len, max_question_len or handle_impossible_answer, no start/end, and does
// not widen spans to words; so it is compared with max_answer_len above the sequence length, on
// contexts whose words are single tokens (where widening changes nothing). Windows of long
// contexts, offsets and the other parameters are checked against an expectation computed here
// from the logits of the model run with onnxruntime on one window at a time.
import { dirname } from 'node:path';
import {
  AutoTokenizer,
  type PreTrainedTokenizer,
  type QuestionAnsweringPipeline,
  env,
  pipeline,
} from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnswerSpan,
  type TextTokenizer,
  answerQuestions,
  encodeQuestions,
  loadTokenizerFromDir,
  parseServeRequest,
  wordIdsOf,
} from '../src/index.js';
import { type FixtureModel, openFixtureModel } from './onnx-session.js';
import { type ExpectOptions, type WordContext, pythonAnswers, wordContext } from './qa-expectation.js';

const TOLERANCE = 1e-4;
const FIXTURE = 'tiny-bert-squad';
const LIMITS = { maxInputChars: 50000, maxBatchItems: 64, truncation: true };
/**
 * (question, context) pairs within one window, every word of each context a single token and none
 * [UNK]: transformers.js masks [UNK] out of the answer (it masks every special id), Python does not.
 */
const SHORT: [string, string][] = [
  ['Where do I live?', 'My name is Wolfgang and I live in Berlin'],
  ['What does the café serve?', 'Héllo wörld, the naïve café serves coffee'],
  ['What is this?', 'Chinese: 我 and faces too'],
  ['Ok?', 'ok'],
];

env.allowRemoteModels = false;
env.allowLocalModels = true;

let tokenizer: TextTokenizer;
let model: FixtureModel;
let reference: QuestionAnsweringPipeline;
let referenceTokenizer: PreTrainedTokenizer;

beforeAll(async () => {
  const dir = await ensureFixture(FIXTURE);
  env.localModelPath = dirname(dir);
  tokenizer = await loadTokenizerFromDir(dir);
  model = await openFixtureModel(dir);
  reference = await pipeline('question-answering', FIXTURE, { dtype: 'fp32', local_files_only: true });
  referenceTokenizer = await AutoTokenizer.from_pretrained(FIXTURE, { local_files_only: true });
});

afterAll(async () => {
  await model.release();
  await reference.dispose();
});

/** What the gateway answers for a body: all windows of all pairs as rows of one batch. */
async function ours(body: unknown, maxTokens?: number): Promise<AnswerSpan[][]> {
  const request = parseServeRequest(body, LIMITS, { task: 'question-answering' }).questionAnswering;
  if (!request) throw new Error('not a question-answering request');
  const encoded = encodeQuestions({ request, tokenizer, inputNames: model.inputNames, maxTokens });
  const outputs = await model.runAll(encoded.tensors);
  const start = outputs.start_logits;
  const end = outputs.end_logits;
  if (!start || !end) throw new Error('no span logits');
  return answerQuestions(
    { start: start.data, end: end.data, sequence: start.dims[1] ?? 0 },
    encoded.pairs,
    request.options,
  );
}

/** What transformers.js answers as the span's text: its tokens decoded. */
function decoded(text: string): string {
  return referenceTokenizer.decode(referenceTokenizer.encode(text, { add_special_tokens: false }), {
    skip_special_tokens: true,
  });
}

function codePoints(text: string, start: number, end: number): string {
  return Array.from(text).slice(start, end).join('');
}

describe('question-answering on tiny-bert-squad', () => {
  it.each(SHORT)(
    'gives single-token words to every word of the oracle contexts: %j',
    (_question, context) => {
      const ids = tokenizer.tokenize(context);
      const words = wordIdsOf(ids, tokenizer);
      expect(new Set(words).size).toBe(ids.length);
    },
  );

  it.each(SHORT)('answers like the transformers.js pipeline, top_k 3: %j', async (question, context) => {
    const [answers = []] = await ours({ question, context, parameters: { top_k: 3, max_answer_len: 1000 } });
    // transformers.js pads top_k with zero-score spans on [CLS] or outside the context; Python's
    // pipeline (and we) return fewer answers when the context has fewer spans.
    const all = (await reference(question, context, { top_k: 3 })) as { answer: string; score: number }[];
    const expected = all.filter((answer) => answer.score > 0);
    expect(answers.length).toBe(expected.length);
    answers.forEach((answer, i) => {
      expect(decoded(answer.answer)).toBe(expected[i]?.answer);
      expect(Math.abs(answer.score - (expected[i]?.score ?? NaN))).toBeLessThan(TOLERANCE);
      expect(codePoints(context, answer.start, answer.end)).toBe(answer.answer);
    });
  });

  it('answers a batch of pairs as each pair alone, with the pipeline’s best answer first', async () => {
    const batch = await ours({
      question: SHORT.map(([question]) => question),
      context: SHORT.map(([, context]) => context),
      parameters: { max_answer_len: 1000 },
    });
    for (const [i, [question, context]] of SHORT.entries()) {
      const expected = (await reference(question, context)) as { answer: string; score: number };
      expect(batch[i]).toHaveLength(1);
      expect(decoded(batch[i]?.[0]?.answer ?? '')).toBe(expected.answer);
      expect(Math.abs((batch[i]?.[0]?.score ?? NaN) - expected.score)).toBeLessThan(TOLERANCE);
    }
  });

  it('refuses an empty question or context as the Python pipeline does (transformers.js answers "" with 0)', async () => {
    expect(((await reference('Where?', '')) as { answer: string }).answer).toBe('');
    expect(() =>
      parseServeRequest({ question: 'Where?', context: '' }, LIMITS, { task: 'question-answering' }),
    ).toThrow('context: must not be empty');
    expect(() =>
      parseServeRequest({ question: '', context: 'x' }, LIMITS, { task: 'question-answering' }),
    ).toThrow('question: must not be empty');
  });
});

/** Python's answers for `question` about `text` on the fixture. */
function expected(question: string, text: WordContext, options: ExpectOptions): Promise<AnswerSpan[]> {
  return pythonAnswers(model, referenceTokenizer, question, text, options);
}

function expectSame(context: string, actual: AnswerSpan[], wanted: AnswerSpan[]): void {
  expect(actual.map(({ answer, start, end }) => ({ answer, start, end }))).toEqual(
    wanted.map(({ answer, start, end }) => ({ answer, start, end })),
  );
  actual.forEach((answer, i) =>
    expect(Math.abs(answer.score - (wanted[i]?.score ?? NaN))).toBeLessThan(TOLERANCE),
  );
  for (const answer of actual) expect(codePoints(context, answer.start, answer.end)).toBe(answer.answer);
}

const PYTHON_DEFAULTS: ExpectOptions = {
  maxSeqLen: 384,
  docStride: 128,
  topK: 1,
  maxAnswerLen: 15,
  handleImpossible: false,
};

describe('question-answering where transformers.js differs from Python', () => {
  it('answers with [UNK] words (CJK, emoji) and their offsets as Python does', async () => {
    const text = wordContext(['Chinese', '我', '爱', '自', '然', 'and', 'faces', '🤗🚀', 'too', '😀']);
    const question = 'What is this?';
    const [answers = []] = await ours({ question, context: text.context, parameters: { top_k: 5 } });
    expectSame(text.context, answers, await expected(question, text, { ...PYTHON_DEFAULTS, topK: 5 }));
  });

  it('widens spans that start or end inside a word to whole words, as Python does (transformers.js does not)', async () => {
    const text = wordContext([
      'Strawberries',
      'grow',
      'unbelievably',
      'near',
      'zxqvbn',
      'hedgerows',
      'naïvely',
      'ok',
    ]);
    expect(referenceTokenizer.encode(text.context, { add_special_tokens: false }).length).toBeGreaterThan(12);
    const question = 'What grows?';
    const [answers = []] = await ours({ question, context: text.context, parameters: { top_k: 10 } });
    expectSame(text.context, answers, await expected(question, text, { ...PYTHON_DEFAULTS, topK: 10 }));
  });
});

describe('question-answering over contexts longer than a window', () => {
  // 700 distinct single-token words with accents, CJK and an emoji among them: far over 512 tokens.
  let text: WordContext;
  const question = 'Which word is it?';

  beforeAll(() => {
    const vocab = [...Array(30522).keys()]
      .map((id) => tokenizer.idToToken(id) ?? '')
      .filter((token, id) => id > 2000 && /^[a-z]{4,}$/.test(token));
    const words = Array.from({ length: 700 }, (_, i) => vocab[i * 7] ?? 'x');
    words.splice(100, 0, 'Café');
    words.splice(300, 0, '我');
    words.splice(500, 0, '🤗');
    text = wordContext(words);
  });

  it('reads every 384-token window (default stride 128) and returns the best span with offsets into the whole context', async () => {
    const [answers = []] = await ours({ question, context: text.context, parameters: { top_k: 5 } });
    expect(referenceTokenizer.encode(text.context).length).toBeGreaterThan(512);
    expectSame(text.context, answers, await expected(question, text, { ...PYTHON_DEFAULTS, topK: 5 }));
  });

  it('honours doc_stride, max_answer_len and handle_impossible_answer on a 64-token window', async () => {
    const parameters = { top_k: 4, doc_stride: 20, max_answer_len: 3, handle_impossible_answer: true };
    const [answers = []] = await ours({ question, context: text.context, parameters }, 64);
    const options = { maxSeqLen: 64, docStride: 20, topK: 4, maxAnswerLen: 3, handleImpossible: true };
    const wanted = await expected(question, text, options);
    expectSame(text.context, answers, wanted);
    for (const answer of answers) expect(answer.answer.split(' ').length).toBeLessThanOrEqual(3);
  });

  it("keeps a question of over 64 tokens whole, as Python's pipeline does with a fast tokenizer (only its slow path cuts to max_question_len)", async () => {
    const long = `${text.words.slice(0, 90).join(' ')} where?`;
    expect(referenceTokenizer.encode(long, { add_special_tokens: false }).length).toBeGreaterThan(64);
    const [answers = []] = await ours({ question: long, context: text.context, parameters: { top_k: 3 } });
    expectSame(text.context, answers, await expected(long, text, { ...PYTHON_DEFAULTS, topK: 3 }));
  });

  it('answers a long and a short pair of one request as it answers each alone', async () => {
    const [short = ['', '']] = SHORT;
    const both = await ours({ question: [question, short[0]], context: [text.context, short[1]] }, 64);
    const [long = []] = await ours({ question, context: text.context }, 64);
    const [alone = []] = await ours({ question: short[0], context: short[1] }, 64);
    expectSame(text.context, both[0] ?? [], long);
    expect(both[1]?.map((a) => a.answer)).toEqual(alone.map((a) => a.answer));
    expect(Math.abs((both[1]?.[0]?.score ?? NaN) - (alone[0]?.score ?? NaN))).toBeLessThan(TOLERANCE);
  });
});
