import { describe, expect, it } from 'vitest';
import { type CaptionDecoding, readCaptionDecoding as readOrWhyNot } from './caption-decoding.js';

/** The decoding of a usable config (fails the test with the reason otherwise). */
function readCaptionDecoding(config: unknown, generationConfig: unknown): CaptionDecoding {
  const decoding = readOrWhyNot(config, generationConfig);
  if (typeof decoding === 'string') return expect.fail(decoding);
  return decoding;
}

/** config.json of a vit-gpt2 captioner: the decoder's own ids, and the top level's. */
const VIT_GPT2_CONFIG = {
  model_type: 'vision-encoder-decoder',
  decoder_start_token_id: 50256,
  eos_token_id: 50256,
  pad_token_id: 50256,
  decoder: { model_type: 'gpt2', bos_token_id: 50256, eos_token_id: 50256, n_positions: 1024 },
};

describe('readCaptionDecoding', () => {
  it("reads a vit-gpt2 captioner's start, end and positions", () => {
    expect(
      readCaptionDecoding(VIT_GPT2_CONFIG, { decoder_start_token_id: 50256, eos_token_id: 50256 }),
    ).toEqual({
      decoderStartTokenId: 50256,
      eosTokenIds: [50256],
      maxPositions: 1024,
      defaultMaxNewTokens: 19,
    });
  });

  it('lets generation_config.json win over config.json, and the decoder sub-config over the top level', () => {
    const config = { decoder_start_token_id: 1, eos_token_id: 2, decoder: { eos_token_id: 3 } };
    expect(readCaptionDecoding(config, undefined)).toMatchObject({
      decoderStartTokenId: 1,
      eosTokenIds: [3],
    });
    expect(readCaptionDecoding(config, { decoder_start_token_id: 7, eos_token_id: [8, 9] })).toMatchObject({
      decoderStartTokenId: 7,
      eosTokenIds: [8, 9],
    });
  });

  it('starts from bos_token_id when decoder_start_token_id is null, as a decoder sub-config sets it', () => {
    const config = { decoder_start_token_id: 5, decoder: { decoder_start_token_id: null, bos_token_id: 6 } };
    expect(readCaptionDecoding(config, undefined).decoderStartTokenId).toBe(6);
  });

  it('ends only at max_new_tokens when eos_token_id is null in generation_config.json', () => {
    expect(
      readCaptionDecoding({ bos_token_id: 0, eos_token_id: 2 }, { eos_token_id: null }).eosTokenIds,
    ).toEqual([]);
  });

  it('refuses a model without a start id, or with malformed ids, saying why', () => {
    expect(readOrWhyNot({ eos_token_id: 2 }, undefined)).toMatch(/decoder_start_token_id or bos_token_id/);
    expect(readOrWhyNot({ decoder_start_token_id: [1, 2] }, undefined)).toMatch(/one token id/);
    expect(readOrWhyNot({ bos_token_id: 1, eos_token_id: ['x'] }, undefined)).toMatch(/eos_token_id/);
  });
});

describe('the default caption length', () => {
  it("is transformers.js': max_length 20 with the start token, unless the configs say otherwise", () => {
    expect(readCaptionDecoding({ bos_token_id: 0 }, undefined).defaultMaxNewTokens).toBe(19);
    expect(
      readCaptionDecoding({ bos_token_id: 0, decoder: { max_length: 32 } }, {}).defaultMaxNewTokens,
    ).toBe(31);
    expect(
      readCaptionDecoding({ bos_token_id: 0 }, { max_length: 16, max_new_tokens: 40 }).defaultMaxNewTokens,
    ).toBe(40);
    expect(readCaptionDecoding({ bos_token_id: 0 }, { max_length: 1 }).defaultMaxNewTokens).toBe(1);
  });
});
