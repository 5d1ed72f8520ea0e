// Character offsets where BERT's normalizer removes characters (a combining accent left by NFD
// once accents are stripped, U+200B and U+FEFF, control characters such as U+0000 and U+0007),
// held to Hugging Face's Rust tokenizers (npm `tokenizers` 0.23.2, the oracle) on the fixtures'
// tokenizer.json, then QA answers and NER entities held to Python's pipelines computed on Rust's
// encodings (rust-tokenizers-oracle.ts). Rust's NormalizedString gives a removed character no
// alignment: a token ends where its last kept character ends, so a character removed after it
// (at a token's, a word's, an answer's or the text's end) lies in no token; one removed between a
// token's kept characters lies inside its span.
import { ensureFixture } from '@modelgate/fixtures';
import { type Tokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AnswerSpan,
  type GroupedEntity,
  type TextTokenizer,
  type TokenEntity,
  answerQuestions,
  classifyTokenRows,
  encodeInputs,
  encodeQuestions,
  loadTokenizerFromDir,
  parseServeRequest,
  tokenizeTexts,
} from '../src/index.js';
import { type FixtureModel, openFixtureModel } from './onnx-session.js';
import {
  type PythonAggregation,
  codePoints,
  isRemovedByNormalizer,
  openRustTokenizer,
  pythonAnswersOnRust,
  pythonEntitiesOnRust,
} from './rust-tokenizers-oracle.js';

const TOLERANCE = 1e-4;
const LIMITS = { maxInputChars: 20000, maxBatchItems: 64, truncation: true };

/** Texts with removed characters, and where they sit. */
const TEXTS: [where: string, text: string][] = [
  ['at words’ ends', 'cafe\u0301 au lait with Sarah\u0007 in Berlin\u200b.'],
  ['at a token’s end inside a word, and inside a token', 'Paris un\u0301believably ca\u0301fe'],
  [
    'before punctuation, several in a row, after [UNK]',
    'Mu\u0308ller\u200b\ufeff. x\u0007\u0007 y 🤗\u0301 ok',
  ],
  ['at the text’s end', 'I live in Berlin\u0007'],
  ['at a word’s start and inside a token', 'the \u200bcafe\u0301s'],
  ['among tabs and newlines', 'control\u0000chars\u0007and\ttabs\nnewlines\u200b\ufeff\r\n'],
];

/** Question-answering pairs of at most a dozen context tokens: top_k 100 covers every span. */
const PAIRS: [question: string, context: string][] = [
  ['Where does Sarah live?', 'Sarah\u0007 lives in Berlin\u200b near the cafe\u0301'],
  ['What is it?', 'Paris un\u0301believably ca\u0301fe x\u0007\u0007 y'],
  ['Who?', 'Mu\u0308ller\u200b. 🤗\u0301 and hel\u200blo'],
];

type Entity = TokenEntity | GroupedEntity;

let rust: Tokenizer;
let tokenizer: TextTokenizer;
let squad: FixtureModel;
let ner: FixtureModel;
let labels: string[];

beforeAll(async () => {
  const squadDir = await ensureFixture('tiny-bert-squad');
  const nerDir = await ensureFixture('tiny-bert-ner');
  // Both fixtures are written with the same tokenizer.json.
  rust = openRustTokenizer(nerDir);
  tokenizer = await loadTokenizerFromDir(nerDir);
  squad = await openFixtureModel(squadDir);
  ner = await openFixtureModel(nerDir);
  labels = tokenizer.modelConfig.labels ?? [];
});

afterAll(async () => {
  await squad.release();
  await ner.release();
});

/** Whether the character at code point `end` of `text` is one the normalizer removes. */
function removedAt(text: string, end: number): boolean {
  const char = Array.from(text)[end];
  return char !== undefined && isRemovedByNormalizer(rust, char);
}

describe('offsets where the normalizer removes characters', () => {
  it.each(TEXTS)('gives Rust tokenizers’ ids and offsets %s: %j', async (_where, text) => {
    const expected = await rust.encode(text, null, { addSpecialTokens: false });
    const { ids, offsets } = tokenizer.tokenizeWithOffsets(text);
    expect(ids).toEqual(expected.getIds());
    expect(offsets).toEqual(expected.getOffsets());
    expect(Array.from(text).some((char) => isRemovedByNormalizer(rust, char))).toBe(true);
  });

  it.each(TEXTS)('answers /tokenize with Rust tokenizers’ offsets %s: %j', async (_where, text) => {
    const expected = await rust.encode(text);
    const [tokenized] = tokenizeTexts({
      texts: [text],
      tokenizer,
      addSpecialTokens: true,
      truncation: true,
      batch: false,
    });
    const special = expected.getSpecialTokensMask();
    expect(tokenized?.ids).toEqual(expected.getIds());
    expect(tokenized?.offsets).toEqual(
      expected.getOffsets().map((span, i) => (special[i] === 1 ? null : span)),
    );
  });
});

/** What the gateway answers for a question-answering body. */
async function answersOf(question: string, context: string, topK: number): Promise<AnswerSpan[]> {
  const body = { question, context, parameters: { top_k: topK } };
  const request = parseServeRequest(body, LIMITS, { task: 'question-answering' }).questionAnswering;
  if (!request) throw new Error('not a question-answering request');
  const encoded = encodeQuestions({ request, tokenizer, inputNames: squad.inputNames });
  const outputs = await squad.runAll(encoded.tensors);
  const start = outputs.start_logits;
  const end = outputs.end_logits;
  if (!start || !end) throw new Error('no span logits');
  const [answers = []] = answerQuestions(
    { start: start.data, end: end.data, sequence: start.dims[1] ?? 0 },
    encoded.pairs,
    request.options,
  );
  return answers;
}

describe('question-answering where the normalizer removes characters (tiny-bert-squad)', () => {
  it.each(PAIRS)(
    'gives Python’s answers on Rust’s offsets, every span of the context (top_k 100): %j / %j',
    async (question, context) => {
      const expected = await pythonAnswersOnRust(rust, squad, question, context, {
        topK: 100,
        maxAnswerLen: 15,
      });
      const actual = await answersOf(question, context, 100);
      expect(actual.map(({ answer, start, end }) => ({ answer, start, end }))).toEqual(
        expected.map(({ answer, start, end }) => ({ answer, start, end })),
      );
      actual.forEach((answer, i) =>
        expect(Math.abs(answer.score - (expected[i]?.score ?? NaN))).toBeLessThan(TOLERANCE),
      );
      for (const answer of actual) expect(codePoints(context, answer.start, answer.end)).toBe(answer.answer);
      // Some answers end right before a removed character, which they leave out.
      expect(expected.some((answer) => removedAt(context, answer.end))).toBe(true);
    },
  );
});

/** What the gateway answers for a token-classification body (every label kept). */
async function entitiesOf(text: string, strategy: PythonAggregation): Promise<Entity[]> {
  const body = { text, parameters: { aggregation_strategy: strategy, ignore_labels: [] } };
  const request = parseServeRequest(body, LIMITS, { task: 'token-classification' });
  const { tensors } = encodeInputs({ ...request, tokenizer, inputNames: ner.inputNames });
  const logits = await ner.run(tensors);
  const [entities = []] = classifyTokenRows({
    texts: request.texts,
    tokenizer,
    inputIds: tensors.input_ids!.data,
    attentionMask: tensors.attention_mask?.data,
    logits: logits.data,
    logitsDims: logits.dims,
    labels,
    options: request.tokenClassification!,
  });
  return entities;
}

describe.each(['none', 'simple', 'first', 'average', 'max'] as const)(
  'token-classification where the normalizer removes characters (tiny-bert-ner), aggregation %s',
  (strategy) => {
    it.each(TEXTS)('gives Python’s entities on Rust’s offsets %s: %j', async (_where, text) => {
      const expected = await pythonEntitiesOnRust(rust, ner, labels, text, strategy);
      const actual = await entitiesOf(text, strategy);
      const withoutScore = (entity: Entity) => {
        const { score: _score, ...rest } = entity;
        return rest;
      };
      expect(actual.map(withoutScore)).toEqual(expected.map(withoutScore));
      actual.forEach((entity, i) =>
        expect(Math.abs(entity.score - (expected[i]?.score ?? NaN))).toBeLessThan(TOLERANCE),
      );
    });
  },
);
