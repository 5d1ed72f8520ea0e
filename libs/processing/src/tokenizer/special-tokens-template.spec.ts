import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import {
  PLAIN_TEMPLATE,
  applySpecialTokensTemplate,
  countSpecialTokens,
  parseSpecialTokensTemplate,
} from './special-tokens-template.js';

const VOCAB: Record<string, number> = { '[CLS]': 101, '[SEP]': 102, '<s>': 0, '</s>': 2 };
const tokenToId = (token: string): number | undefined => VOCAB[token];

describe('parseSpecialTokensTemplate', () => {
  it('reads TemplateProcessing, taking special token ids from special_tokens', () => {
    const template = parseSpecialTokensTemplate(
      {
        type: 'TemplateProcessing',
        single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }],
        pair: [
          { Sequence: { id: 'A', type_id: 0 } },
          { SpecialToken: { id: '<sep2>', type_id: 0 } },
          { Sequence: { id: 'B', type_id: 1 } },
        ],
        special_tokens: { '<sep2>': { id: '<sep2>', ids: [7, 8], tokens: ['<', 'sep2>'] } },
      },
      tokenToId,
    );
    expect(applySpecialTokensTemplate(template, [5, 6])).toEqual({ ids: [101, 5, 6], typeIds: [0, 0, 0] });
    expect(applySpecialTokensTemplate(template, [5], [9])).toEqual({
      ids: [5, 7, 8, 9],
      typeIds: [0, 0, 0, 1],
    });
    expect(countSpecialTokens(template, false)).toBe(1);
    expect(countSpecialTokens(template, true)).toBe(2);
  });

  it('reads BertProcessing as [CLS] A [SEP] and [CLS] A [SEP] B [SEP]', () => {
    const template = parseSpecialTokensTemplate(
      { type: 'BertProcessing', cls: ['[CLS]', 101], sep: ['[SEP]', 102] },
      tokenToId,
    );
    expect(applySpecialTokensTemplate(template, [5])).toEqual({ ids: [101, 5, 102], typeIds: [0, 0, 0] });
    expect(applySpecialTokensTemplate(template, [5], [6])).toEqual({
      ids: [101, 5, 102, 6, 102],
      typeIds: [0, 0, 0, 1, 1],
    });
  });

  it('reads RobertaProcessing as <s> A </s></s> B </s>', () => {
    const template = parseSpecialTokensTemplate(
      { type: 'RobertaProcessing', cls: ['<s>', 0], sep: ['</s>', 2] },
      tokenToId,
    );
    expect(applySpecialTokensTemplate(template, [5], [6]).ids).toEqual([0, 5, 2, 2, 6, 2]);
    expect(countSpecialTokens(template, true)).toBe(4);
  });

  it('finds the one templating processor inside a Sequence with ByteLevel', () => {
    const template = parseSpecialTokensTemplate(
      {
        type: 'Sequence',
        processors: [
          { type: 'ByteLevel', add_prefix_space: true },
          { type: 'BertProcessing', cls: ['[CLS]', 101], sep: ['[SEP]', 102] },
        ],
      },
      tokenToId,
    );
    expect(applySpecialTokensTemplate(template, [5]).ids).toEqual([101, 5, 102]);
  });

  it('adds nothing without a post-processor or with ByteLevel alone', () => {
    expect(parseSpecialTokensTemplate(null, tokenToId)).toBe(PLAIN_TEMPLATE);
    expect(parseSpecialTokensTemplate({ type: 'ByteLevel' }, tokenToId)).toBe(PLAIN_TEMPLATE);
    expect(applySpecialTokensTemplate(PLAIN_TEMPLATE, [5], [6])).toEqual({ ids: [5, 6], typeIds: [0, 1] });
  });

  it('refuses unknown post-processors and special tokens missing from the vocabulary', () => {
    const invalid: unknown = expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT });
    expect(() => parseSpecialTokensTemplate({ type: 'Mystery' }, tokenToId)).toThrow(invalid);
    expect(() =>
      parseSpecialTokensTemplate(
        { type: 'TemplateProcessing', single: [{ SpecialToken: { id: '<nope>', type_id: 0 } }], pair: [] },
        tokenToId,
      ),
    ).toThrow(/<nope> is not in the vocabulary/);
  });
});
