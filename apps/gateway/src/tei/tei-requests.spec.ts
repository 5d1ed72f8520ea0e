import { ModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { TeiEmptyBatch } from './tei-errors.js';
import {
  parseTeiDecode,
  parseTeiEmbed,
  parseTeiEmbedAll,
  parseTeiPredict,
  parseTeiRerank,
  parseTeiTokenize,
} from './tei-requests.js';

function refusal(run: () => unknown): { field?: string; message: string; empty: boolean } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ModelgateError);
    const failure = error as ModelgateError;
    return {
      ...(failure.details.field === undefined ? {} : { field: failure.details.field }),
      message: failure.message,
      empty: error instanceof TeiEmptyBatch,
    };
  }
  throw new Error('expected a refusal');
}

describe('TEI request bodies', () => {
  it('reads /embed as a /serve body that leaves normalizing to the face, normalize true by default', () => {
    expect(parseTeiEmbed({ inputs: 'a text' })).toEqual({
      serveBody: { text: ['a text'], parameters: { normalize: false } },
      normalize: true,
    });
    expect(
      parseTeiEmbed({ inputs: ['a', 'b'], normalize: false, truncate: true, dimensions: 4, model: 'e' }),
    ).toEqual({
      serveBody: { text: ['a', 'b'], parameters: { normalize: false, truncation: true } },
      normalize: false,
      dimensions: 4,
    });
    expect(parseTeiEmbed({ inputs: 'x', dimensions: null, prompt_name: null, truncate: null })).toEqual({
      serveBody: { text: ['x'], parameters: { normalize: false } },
      normalize: true,
    });
  });

  it('asks /serve for token vectors on /embed_all', () => {
    expect(parseTeiEmbedAll({ inputs: ['a'], truncation_direction: 'Right' }).serveBody).toEqual({
      text: ['a'],
      parameters: { pooling: 'none', normalize: false },
    });
  });

  it('refuses what modelgate cannot do by name, and an empty batch as TEI does', () => {
    expect(refusal(() => parseTeiEmbed({ inputs: [[101, 102]] }))).toMatchObject({
      field: 'inputs[0]',
      message: 'inputs: token ids are not accepted; send the text',
    });
    expect(refusal(() => parseTeiEmbed({ inputs: 'a', truncation_direction: 'Left' }))).toMatchObject({
      field: 'truncation_direction',
    });
    expect(refusal(() => parseTeiEmbed({ inputs: 'a', prompt_name: 'query' })).field).toBe('prompt_name');
    expect(refusal(() => parseTeiEmbed({ inputs: 'a', pooling: 'cls' }))).toMatchObject({
      field: 'pooling',
      message: 'invalid request body: pooling: is not a known field',
    });
    expect(refusal(() => parseTeiEmbed({ inputs: [] }))).toEqual({
      field: 'inputs',
      message: '`inputs` cannot be empty',
      empty: true,
    });
    expect(refusal(() => parseTeiEmbed('text')).message).toContain('the body must be a JSON object');
    expect(refusal(() => parseTeiEmbed({ inputs: 'a', dimensions: 0 })).field).toBe('dimensions');
  });

  it('reads /predict inputs as TEI does: a text, a pair, or a batch of texts and pairs', () => {
    expect(parseTeiPredict({ inputs: 'one' })).toEqual({
      sequences: [['one']],
      batch: false,
      parameters: { top_k: null },
    });
    expect(parseTeiPredict({ inputs: ['first', 'second'], raw_scores: true, truncate: false })).toEqual({
      sequences: [['first', 'second']],
      batch: false,
      parameters: { top_k: null, function_to_apply: 'none', truncation: false },
    });
    expect(parseTeiPredict({ inputs: ['alone'] }).sequences).toEqual([['alone']]);
    expect(parseTeiPredict({ inputs: [['a'], ['b', 'c']] })).toMatchObject({
      sequences: [['a'], ['b', 'c']],
      batch: true,
    });
    expect(refusal(() => parseTeiPredict({ inputs: ['a', 'b', 'c'] })).field).toBe('inputs');
    expect(refusal(() => parseTeiPredict({ inputs: [['a'], ['b', 'c', 'd']] })).field).toBe('inputs[1]');
    expect(refusal(() => parseTeiPredict({ inputs: [] })).empty).toBe(true);
  });

  it('passes /rerank through as the text-ranking /serve body, without model', () => {
    expect(
      parseTeiRerank({
        model: 'r',
        query: 'q',
        texts: ['a', 'b'],
        raw_scores: true,
        return_text: true,
        truncate: true,
      }),
    ).toEqual({ query: 'q', texts: ['a', 'b'], raw_scores: true, return_text: true, truncate: true });
    expect(refusal(() => parseTeiRerank({ query: 'q', texts: [] }))).toMatchObject({
      field: 'texts',
      empty: true,
    });
    expect(refusal(() => parseTeiRerank({ texts: ['a'] })).field).toBe('query');
  });

  it('reads /tokenize and /decode', () => {
    expect(parseTeiTokenize({ inputs: 'a', add_special_tokens: false })).toEqual({
      text: ['a'],
      add_special_tokens: false,
    });
    expect(parseTeiTokenize({ inputs: ['a', 'b'] })).toEqual({ text: ['a', 'b'] });
    expect(parseTeiDecode({ ids: [1, 2] })).toEqual({ ids: [[1, 2]], flat: true, skipSpecialTokens: true });
    expect(parseTeiDecode({ ids: [[1], [2, 3]], skip_special_tokens: false })).toEqual({
      ids: [[1], [2, 3]],
      flat: false,
      skipSpecialTokens: false,
    });
    expect(refusal(() => parseTeiDecode({ ids: [] })).empty).toBe(true);
    expect(refusal(() => parseTeiDecode({ ids: [-1] })).field).toBe('ids[0]');
  });
});
