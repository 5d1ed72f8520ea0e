import { describe, expect, it } from 'vitest';
import { checkBundleForTask } from './bundle-checks.js';

const question = (tokenizer: unknown) => checkBundleForTask('question-answering', { tokenizer }, [], []);

describe('checkBundleForTask: question-answering', () => {
  it('refuses a byte-level BPE tokenizer, which question answering is not verified with', () => {
    const roberta = { model: { type: 'BPE' }, pre_tokenizer: { type: 'ByteLevel', add_prefix_space: false } };
    expect(question(roberta)).toEqual([
      expect.stringContaining('the tokenizer is byte-level BPE (RoBERTa or GPT-2 style)'),
    ]);
    const sequence = {
      pre_tokenizer: { type: 'Sequence', pretokenizers: [{ type: 'Digits' }, { type: 'ByteLevel' }] },
    };
    expect(question(sequence)).toHaveLength(1);
  });

  it('takes a WordPiece tokenizer, and a bundle read without tokenizer.json', () => {
    expect(question({ model: { type: 'WordPiece' }, pre_tokenizer: { type: 'BertPreTokenizer' } })).toEqual(
      [],
    );
    expect(question(undefined)).toEqual([]);
  });
});
