import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkDecoderIo } from './decoder-export.js';
import { checkIoForTask } from './io-requirements.js';
import {
  checkCrossAttentionWidth,
  checkDecoderStart,
  checkVisionEncoderIo,
  decoderConfigOf,
} from './vision-encoder-decoder.js';

const PIXELS: TensorMetadata = { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] };
const HIDDEN: TensorMetadata = { name: 'last_hidden_state', datatype: 'FP32', dims: [-1, 197, 64] };
const STATES: TensorMetadata = { name: 'encoder_hidden_states', datatype: 'FP32', dims: [-1, -1, 64] };

/** A vit-gpt2 decoder_model_merged.onnx (transformers.js layout, no use_cache_branch), one layer. */
function captionDecoder(states: TensorMetadata | null = STATES) {
  const cache = (prefix: string): TensorMetadata[] =>
    (['key', 'value'] as const).map((half) => ({
      name: `${prefix}.0.${half}`,
      datatype: 'FP32',
      dims: [-1, 4, -1, 16],
    }));
  return {
    inputs: [
      { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
      ...(states === null ? [] : [states]),
      ...cache('past_key_values'),
    ] as TensorMetadata[],
    outputs: [
      { name: 'logits', datatype: 'FP32', dims: [-1, -1, 50257] },
      ...cache('present'),
    ] as TensorMetadata[],
  };
}

describe('image-to-text decoder checks (shared with text-generation)', () => {
  it('accepts a decoder with past that takes encoder_hidden_states', () => {
    const { inputs, outputs } = captionDecoder();
    expect(checkIoForTask('image-to-text', inputs, outputs)).toEqual([]);
  });

  it('refuses a decoder without encoder_hidden_states, naming the input', () => {
    const { inputs, outputs } = captionDecoder(null);
    expect(checkIoForTask('image-to-text', inputs, outputs)).toEqual([
      expect.stringMatching(
        /^task image-to-text needs a decoder with an input named encoder_hidden_states .*; the decoder has inputs input_ids/,
      ),
    ]);
  });

  it('refuses encoder_hidden_states that is not FP32 of rank 3', () => {
    const { inputs, outputs } = captionDecoder({ ...STATES, dims: [-1, 64] });
    expect(checkDecoderIo(inputs, outputs, 'image-to-text')).toEqual([
      "task image-to-text needs the decoder's encoder_hidden_states to be FP32 [batch, encoder sequence, hidden]; " +
        'the decoder declares encoder_hidden_states (FP32 [-1, 64])',
    ]);
  });

  it('refuses a decoder without past in image-to-text words, and keeps text-generation from feeding encoder states', () => {
    const { inputs, outputs } = captionDecoder();
    const noPast = inputs.filter((input) => !input.name.startsWith('past_key_values'));
    expect(checkIoForTask('image-to-text', noPast, outputs)[0]).toMatch(
      /^an image-to-text model needs past_key_values inputs \(a vision-encoder-decoder export with past/,
    );
    expect(checkIoForTask('text-generation', inputs, outputs)).toEqual([
      expect.stringContaining(
        'task text-generation feeds only input_ids, attention_mask, position_ids, use_cache_branch and past_key_values',
      ),
    ]);
  });
});

describe('checkVisionEncoderIo', () => {
  it('accepts pixel_values in and last_hidden_state out', () => {
    expect(checkVisionEncoderIo([PIXELS], [HIDDEN])).toEqual([]);
  });

  it('refuses an encoder without last_hidden_state, and one that does not take pixel_values', () => {
    const pooled: TensorMetadata = { name: 'pooler_output', datatype: 'FP32', dims: [-1, 64] };
    expect(checkVisionEncoderIo([PIXELS], [pooled])).toEqual([
      'task image-to-text needs an encoder with an FP32 output named last_hidden_state [batch, sequence, hidden] ' +
        '(the states the decoder attends to); the encoder has outputs pooler_output (FP32 [-1, 64])',
    ]);
    const ids: TensorMetadata = { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] };
    expect(checkVisionEncoderIo([ids], [HIDDEN])).toEqual([
      'task image-to-text needs an input named pixel_values; the encoder has inputs input_ids (INT64 [-1, -1])',
      'task image-to-text feeds only pixel_values; the encoder also needs input_ids (INT64 [-1, -1])',
    ]);
  });
});

describe('checkCrossAttentionWidth', () => {
  it('compares static hidden sizes only', () => {
    expect(checkCrossAttentionWidth([HIDDEN], [STATES])).toBeUndefined();
    expect(checkCrossAttentionWidth([{ ...HIDDEN, dims: [-1, -1, -1] }], [STATES])).toBeUndefined();
    expect(checkCrossAttentionWidth([{ ...HIDDEN, dims: [-1, 197, 768] }], [STATES])).toBe(
      "the encoder's last_hidden_state has hidden size 768 but the decoder's encoder_hidden_states takes 64 " +
        '(the two graphs belong to different models?)',
    );
  });
});

describe('vision-encoder-decoder config', () => {
  it("reads the decoder's sub-config", () => {
    expect(decoderConfigOf({ decoder: { n_positions: 1024 } })).toEqual({ n_positions: 1024 });
    expect(decoderConfigOf({ decoder: [1] })).toBeUndefined();
    expect(decoderConfigOf(undefined)).toBeUndefined();
  });

  it('refuses a model without a start token (decoder_start_token_id, else bos_token_id), or with one beyond the vocabulary', () => {
    expect(checkDecoderStart({}, {}, 100)).toEqual([
      'task image-to-text: neither generation_config.json nor config.json (or its decoder) names a decoder_start_token_id or bos_token_id',
    ]);
    expect(checkDecoderStart({ decoder_start_token_id: 100 }, undefined, 100)).toEqual([
      "the decoder's start token 100 is not a token of the model (vocabulary of 100)",
    ]);
    expect(checkDecoderStart({ decoder_start_token_id: 99 }, undefined, 100)).toEqual([]);
    // As transformers.js starts the decoder: from bos_token_id when no decoder_start_token_id is given.
    expect(checkDecoderStart({ decoder: { bos_token_id: 7 } }, undefined, 100)).toEqual([]);
    expect(checkDecoderStart({ decoder_start_token_id: 1 }, { eos_token_id: 'x' }, 100)).toEqual([
      expect.stringMatching(/^task image-to-text: eos_token_id must be a token id/),
    ]);
  });
});
