import { describe, expect, it } from 'vitest';
import { type ClassifiedToken, type ClassifyTokensOptions, classifyTokens } from './token-classify.js';

const LABELS = ['O', 'B-PER', 'I-PER', 'B-LOC', 'I-LOC'];

// "[CLS] sarah lives in new york ##er [SEP]" over "Sarah lives in New Yorker".
const TEXT = 'Sarah lives in New Yorker';
const TOKENS: ClassifiedToken[] = [
  { token: '[CLS]', index: 0, span: undefined, special: true, unknown: false },
  { token: 'sarah', index: 1, span: [0, 5], special: false, unknown: false },
  { token: 'lives', index: 2, span: [6, 11], special: false, unknown: false },
  { token: 'in', index: 3, span: [12, 14], special: false, unknown: false },
  { token: 'new', index: 4, span: [15, 18], special: false, unknown: false },
  { token: 'york', index: 5, span: [19, 23], special: false, unknown: false },
  { token: '##er', index: 6, span: [23, 25], special: false, unknown: false },
  { token: '[SEP]', index: 7, span: undefined, special: true, unknown: false },
];

/** A logit row whose softmax puts `probability` on `label` and spreads the rest evenly. */
function row(label: string, probability: number): number[] {
  const rest = (1 - probability) / (LABELS.length - 1);
  return LABELS.map((name) => Math.log(name === label ? probability : rest));
}

const LOGITS = [
  row('O', 0.9), // [CLS]
  row('B-PER', 0.8),
  row('O', 0.7),
  row('O', 0.6),
  row('B-LOC', 0.5),
  row('I-LOC', 0.6),
  row('B-PER', 0.9), // "##er" disagrees with its word
  row('O', 0.9), // [SEP]
].flat();

const join = (tokens: readonly string[]) =>
  tokens.map((t, i) => (i === 0 ? t : t.startsWith('##') ? t.slice(2) : ` ${t}`)).join('');

function run(options: Partial<ClassifyTokensOptions>, tokens = TOKENS, logits = LOGITS) {
  return classifyTokens(TEXT, tokens, logits, {
    labels: LABELS,
    aggregationStrategy: 'none',
    joinTokens: join,
    continuingSubwordPrefix: '##',
    ...options,
  });
}

const rounded = (entities: { score: number }[]) =>
  entities.map((e) => ({ ...e, score: Math.round(e.score * 1000) / 1000 }));

describe('classifyTokens', () => {
  it('answers each token with its best label, skipping special tokens and the ignored label O', () => {
    expect(rounded(run({}))).toEqual([
      { entity: 'B-PER', score: 0.8, index: 1, word: 'sarah', start: 0, end: 5 },
      { entity: 'B-LOC', score: 0.5, index: 4, word: 'new', start: 15, end: 18 },
      { entity: 'I-LOC', score: 0.6, index: 5, word: 'york', start: 19, end: 23 },
      { entity: 'B-PER', score: 0.9, index: 6, word: '##er', start: 23, end: 25 },
    ]);
  });

  it('simple: groups B-/I- tokens of one tag with their mean score; a B- opens a new group', () => {
    expect(rounded(run({ aggregationStrategy: 'simple' }))).toEqual([
      { entity_group: 'PER', score: 0.8, word: 'sarah', start: 0, end: 5 },
      { entity_group: 'LOC', score: 0.55, word: 'new york', start: 15, end: 23 },
      { entity_group: 'PER', score: 0.9, word: '##er', start: 23, end: 25 },
    ]);
  });

  it('first: a word takes the label and score of its first token', () => {
    expect(rounded(run({ aggregationStrategy: 'first' }))).toEqual([
      { entity_group: 'PER', score: 0.8, word: 'sarah', start: 0, end: 5 },
      { entity_group: 'LOC', score: 0.55, word: 'new yorker', start: 15, end: 25 },
    ]);
  });

  it('max: a word takes the scores of its most confident token', () => {
    expect(rounded(run({ aggregationStrategy: 'max' }))).toEqual([
      { entity_group: 'PER', score: 0.8, word: 'sarah', start: 0, end: 5 },
      { entity_group: 'LOC', score: 0.5, word: 'new', start: 15, end: 18 },
      { entity_group: 'PER', score: 0.9, word: 'yorker', start: 19, end: 25 },
    ]);
  });

  it('average: a word takes the best label of its tokens’ mean scores', () => {
    // "york" + "##er": I-LOC (0.6 + 0.025) / 2 = 0.3125, B-PER (0.1 + 0.9) / 2 = 0.5.
    expect(rounded(run({ aggregationStrategy: 'average' }))).toEqual([
      { entity_group: 'PER', score: 0.8, word: 'sarah', start: 0, end: 5 },
      { entity_group: 'LOC', score: 0.5, word: 'new', start: 15, end: 18 },
      { entity_group: 'PER', score: 0.5, word: 'yorker', start: 19, end: 25 },
    ]);
  });

  it('filters ignore_labels after grouping: an O between two I- tokens still splits them', () => {
    const logits = [row('O', 0.9), row('I-PER', 0.7), row('O', 0.7), row('I-PER', 0.5)].flat();
    const tokens = TOKENS.slice(0, 4);
    expect(rounded(run({ aggregationStrategy: 'simple' }, tokens, logits))).toEqual([
      { entity_group: 'PER', score: 0.7, word: 'sarah', start: 0, end: 5 },
      { entity_group: 'PER', score: 0.5, word: 'in', start: 12, end: 14 },
    ]);
    expect(run({ aggregationStrategy: 'simple', ignoreLabels: [] }, tokens, logits)).toHaveLength(3);
    expect(run({ ignoreLabels: ['I-PER'] }, tokens, logits).map((e) => e.word)).toEqual(['lives']);
  });

  it('takes the original text as the word of an unknown token, which never continues a word', () => {
    const tokens: ClassifiedToken[] = [
      { token: '[UNK]', index: 0, span: [0, 1], special: false, unknown: true },
      { token: '##ab', index: 1, span: [1, 3], special: false, unknown: false },
    ];
    const logits = [row('B-PER', 0.6), row('I-PER', 0.6)].flat();
    const entities = classifyTokens('🤗ab', tokens, logits, {
      labels: LABELS,
      aggregationStrategy: 'first',
      joinTokens: join,
      continuingSubwordPrefix: '##',
    });
    expect(rounded(entities)).toEqual([{ entity_group: 'PER', score: 0.6, word: '🤗ab', start: 0, end: 3 }]);
  });

  // Spans as Rust tokenizers place them where the normalizer removes characters (0.23.2 on BERT's
  // pipeline): a token ends before a character removed after it; one removed between its kept
  // characters lies inside it.
  describe('where the normalizer removed characters', () => {
    const entitiesOf = (text: string, tokens: ClassifiedToken[], labels: string[]) =>
      rounded(
        classifyTokens(text, tokens, labels.map((label) => row(label, 0.6)).flat(), {
          labels: LABELS,
          aggregationStrategy: 'first',
          joinTokens: join,
          continuingSubwordPrefix: '##',
        }),
      );
    const token = (text: string, index: number, span: [number, number]): ClassifiedToken => ({
      token: text,
      index,
      span,
      special: false,
      unknown: false,
    });

    it('keeps a word that ends before a removed accent or control character a word of its own', () => {
      // "Sarah\u0007 in New\u200b York\u0301": every token as long as its span.
      const text = 'Sarah\u0007 in New\u200b York\u0301';
      const tokens = [token('sarah', 0, [0, 5]), token('in', 1, [7, 9]), token('new', 2, [10, 13])];
      tokens.push(token('york', 3, [15, 19]));
      expect(entitiesOf(text, tokens, ['B-PER', 'O', 'B-LOC', 'I-LOC'])).toEqual([
        { entity_group: 'PER', score: 0.6, word: 'sarah', start: 0, end: 5 },
        { entity_group: 'LOC', score: 0.6, word: 'new york', start: 10, end: 19 },
      ]);
    });

    it('takes a token with a removed accent inside it for a continuation, as Python’s length test does', () => {
      // "Paris ca\u0301fe": "cafe" (4 characters) spans 5, so Python merges it into "paris".
      const tokens = [token('paris', 0, [0, 5]), token('cafe', 1, [6, 11])];
      expect(entitiesOf('Paris ca\u0301fe', tokens, ['B-LOC', 'O'])).toEqual([
        { entity_group: 'LOC', score: 0.6, word: 'paris cafe', start: 0, end: 11 },
      ]);
    });
  });

  it('refuses logits that do not fit the labels', () => {
    expect(() => run({}, TOKENS, [1, 2, 3])).toThrow(/3 scores for the input but has 5 labels/);
  });
});
