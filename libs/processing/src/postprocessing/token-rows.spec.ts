import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { miniByteLevelTokenizerJson, miniTokenizerFiles } from '../../test/mini-tokenizer.js';
import { encodeInputs } from '../preprocessing/encode-inputs.js';
import { loadTokenizer } from '../tokenizer/text-tokenizer.js';
import { classifyTokenRows } from './token-rows.js';

const tokenizer = loadTokenizer(miniTokenizerFiles());
const LABELS = ['O', 'B-ANIMAL', 'I-ANIMAL'];

/** Logits [rows, sequence, 3] whose best label at every position is `best(row, index)`. */
function logitsFor(
  rows: number,
  sequence: number,
  best: (row: number, index: number) => number,
): Float32Array {
  const data = new Float32Array(rows * sequence * LABELS.length);
  for (let r = 0; r < rows; r++) {
    for (let i = 0; i < sequence; i++) data[(r * sequence + i) * LABELS.length + best(r, i)] = 4;
  }
  return data;
}

function run(texts: string[], best: (row: number, index: number) => number, maxTokens?: number) {
  const { tensors } = encodeInputs({
    texts,
    tokenizer,
    inputNames: ['input_ids', 'attention_mask'],
    truncation: true,
    maxTokens,
  });
  const [rows = 0, sequence = 0] = tensors.input_ids!.dims;
  return {
    tensors,
    entities: classifyTokenRows({
      texts,
      tokenizer,
      inputIds: tensors.input_ids!.data,
      attentionMask: tensors.attention_mask!.data,
      logits: logitsFor(rows, sequence, best),
      logitsDims: [rows, sequence, LABELS.length],
      labels: LABELS,
      options: { aggregationStrategy: 'simple', ignoreLabels: ['O'] },
    }),
  };
}

describe('classifyTokenRows', () => {
  it('matches each row to its text: spans, word pieces, and no entity for special or padding tokens', () => {
    // Row 0: [CLS] the cat ##s sat [SEP]; row 1: [CLS] hello [SEP] [PAD]…
    const { entities } = run(['The Cats sat', 'Hello'], (_, index) =>
      index === 2 ? 1 : index === 3 ? 2 : 0,
    );
    expect(entities[0]).toEqual([
      { entity_group: 'ANIMAL', score: expect.closeTo(0.965, 3) as number, word: 'cats', start: 4, end: 8 },
    ]);
    expect(entities[1]).toEqual([]);
  });

  it('keeps the spans of the tokens a truncated row still has', () => {
    const { entities } = run(['the cat sat on the mat'], () => 1, 4);
    expect(entities[0]!.map((e) => [e.word, e.start, e.end])).toEqual([
      ['the', 0, 3],
      ['cat', 4, 7],
    ]);
  });

  it('refuses logits without a label per score, naming the count', () => {
    const { tensors } = run(['the cat'], () => 0);
    expect(() =>
      classifyTokenRows({
        texts: ['the cat'],
        tokenizer,
        inputIds: tensors.input_ids!.data,
        attentionMask: undefined,
        logits: new Float32Array(4 * 2),
        logitsDims: [1, 4, 2],
        labels: LABELS,
        options: { aggregationStrategy: 'none', ignoreLabels: [] },
      }),
    ).toThrow(
      expect.objectContaining({
        code: ErrorCode.INTERNAL,
        message: expect.stringMatching(/2 scores per token but has 3 labels/) as string,
      }) as Error,
    );
  });
});

describe('classifyTokenRows on a byte-level BPE tokenizer (GPT-2, RoBERTa)', () => {
  const bpe = loadTokenizer({
    tokenizerJson: miniByteLevelTokenizerJson(true),
    tokenizerConfig: { model_max_length: 64 },
  });

  it('places entities by their offsets and merges a word split into bytes, as transformers does without a prefix', () => {
    const texts = ['Hi, my name'];
    // H i , Ġmy Ġname: "H", "i" and "," are one word (no space between them), labelled by its first token.
    const { tensors } = encodeInputs({
      texts,
      tokenizer: bpe,
      inputNames: ['input_ids', 'attention_mask'],
      truncation: true,
    });
    const [rows = 0, sequence = 0] = tensors.input_ids!.dims;
    const [entities] = classifyTokenRows({
      texts,
      tokenizer: bpe,
      inputIds: tensors.input_ids!.data,
      attentionMask: tensors.attention_mask!.data,
      logits: logitsFor(rows, sequence, (_, index) => (index === 0 ? 1 : index === 4 ? 1 : 0)),
      logitsDims: [rows, sequence, LABELS.length],
      labels: LABELS,
      options: { aggregationStrategy: 'first', ignoreLabels: ['O'] },
    });
    expect(entities).toEqual([
      // transformers' rule without a prefix: a token not after a space continues the word ("i", ",").
      { entity_group: 'ANIMAL', score: expect.any(Number) as number, word: 'Hi,', start: 0, end: 3 },
      // The word is the tokens' text (" name"), its span the trimmed offsets.
      { entity_group: 'ANIMAL', score: expect.any(Number) as number, word: ' name', start: 7, end: 11 },
    ]);
  });
});
