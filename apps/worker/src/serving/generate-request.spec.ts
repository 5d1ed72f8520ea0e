import { describe, expect, it } from 'vitest';
import { decodeGenerateRequest } from './generate-request.js';

const base = { model_name: 'gpt', input_ids: ['464', '2068'], max_new_tokens: 5 };

describe('decodeGenerateRequest', () => {
  it('decodes a greedy request, int64 ids as the proto loader gives them', () => {
    expect(decodeGenerateRequest({ ...base, eos_token_ids: ['50256'] }, 50257)).toEqual({
      promptIds: [464, 2068],
      maxNewTokens: 5,
      eosTokenIds: [50256],
      sampling: { doSample: false, temperature: 1, topK: 0, topP: 1 },
    });
  });

  it('keeps the sampling fields and the seed of a sampled request; top_p 0 means off', () => {
    const decoded = decodeGenerateRequest(
      { ...base, do_sample: true, temperature: 0.7, top_k: 40, top_p: 0, has_seed: true, seed: '42' },
      undefined,
    );
    expect(decoded.sampling).toEqual({ doSample: true, temperature: 0.7, topK: 40, topP: 1, seed: 42 });
  });

  it.each([
    [{ input_ids: [] }, /input_ids must hold at least one token id/],
    [{ input_ids: ['50257'] }, /input_ids\[0\] must be a token id from 0 to 50256, got 50257/],
    [{ input_ids: ['-1'] }, /input_ids\[0\]/],
    [{ max_new_tokens: 0 }, /max_new_tokens must be an integer from 1 to/],
    [{ do_sample: true, temperature: 0 }, /temperature must be > 0 when do_sample is set/],
    [{ do_sample: true, top_p: 1.5 }, /top_p must be in \(0, 1\]/],
    [
      { do_sample: true, has_seed: true, seed: String(2 ** 60) },
      /seed must be an integer from 0 to 2\^53 - 1/,
    ],
    [{ logprobs: true, top_logprobs: 21 }, /top_logprobs must be from 0 to 20, got 21/],
    [{ top_logprobs: 2 }, /top_logprobs needs logprobs/],
  ])('refuses %o with INVALID_ARGUMENT', (fields, message) => {
    let thrown: unknown;
    try {
      decodeGenerateRequest({ ...base, ...fields }, 50257);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect((thrown as Error).message).toMatch(message);
  });

  it('asks for logprobs with their alternatives only when logprobs is set', () => {
    expect(decodeGenerateRequest({ ...base, logprobs: true, top_logprobs: 5 }, 50257).logprobs).toBe(5);
    expect(decodeGenerateRequest({ ...base, logprobs: true }, 50257).logprobs).toBe(0);
    expect(decodeGenerateRequest({ ...base, logprobs: false }, 50257)).not.toHaveProperty('logprobs');
  });

  it("takes a greedy request's sampling fields at their neutral values, as the gateway sends them", () => {
    const neutral = { temperature: 1, top_k: 0, top_p: 1, has_seed: false, seed: '0' };
    expect(decodeGenerateRequest({ ...base, ...neutral }, 50257).sampling).toEqual({
      doSample: false,
      temperature: 1,
      topK: 0,
      topP: 1,
    });
    expect(decodeGenerateRequest({ ...base, temperature: 0, top_p: 0 }, 50257).sampling.doSample).toBe(false);
  });

  it('refuses a sampling field on a greedy request, which would be ignored, naming each', () => {
    expect(() =>
      decodeGenerateRequest(
        { ...base, temperature: 0.7, top_k: 40, top_p: 0.9, has_seed: true, seed: '1' },
        50257,
      ),
    ).toThrow(
      'temperature, top_k, top_p, seed only act with do_sample (greedy decoding reads none): set do_sample or drop them',
    );
    expect(() => decodeGenerateRequest({ ...base, top_p: 7 }, 50257)).toThrow(
      /^top_p only acts with do_sample .*drop it$/,
    );
  });

  describe('pixel_values (image-to-text)', () => {
    const image = { pixel_values_shape: ['3', '2', '2'] };
    const bytes = (values: number[], offset = 0) => {
      const buffer = Buffer.alloc(offset + values.length * 4);
      values.forEach((value, i) => buffer.writeFloatLE(value, offset + i * 4));
      return buffer.subarray(offset);
    };
    const twelve = Array.from({ length: 12 }, (_, i) => i / 2);

    it('reads the image as FP32 [C, H, W], in place when aligned and copied once when not', () => {
      for (const offset of [0, 4, 1, 3]) {
        const pixel_values = bytes(twelve, offset);
        const { pixels } = decodeGenerateRequest({ ...base, ...image, pixel_values }, 50257, [3, -1, 2]);
        expect(pixels?.dims).toEqual([3, 2, 2]);
        expect(Array.from(pixels!.data)).toEqual(twelve);
        expect(pixels!.data.buffer === pixel_values.buffer).toBe(offset % 4 === 0);
      }
    });

    it.each([
      [{}, /pixel_values are required: an image-to-text model captions an image/],
      [
        { pixel_values: bytes(twelve), pixel_values_shape: ['3', '4', '1'] },
        /pixel_values_shape must be \[channels, height, width\] = \[3, \?, 2\] for this model, got \[3, 4, 1\]/,
      ],
      [{ pixel_values: bytes(twelve), pixel_values_shape: ['3', '2'] }, /pixel_values_shape must be/],
      [
        { pixel_values: bytes(twelve.slice(1)), ...image },
        /pixel_values must hold 12 FP32 values \(48 bytes\) for shape \[3, 2, 2\], got 44 bytes/,
      ],
    ])('refuses a bad image (%j)', (fields, message) => {
      expect(() => decodeGenerateRequest({ ...base, ...fields }, 50257, [3, -1, 2])).toThrow(message);
    });

    it('refuses pixel_values on a model that takes no image', () => {
      expect(() => decodeGenerateRequest({ ...base, ...image, pixel_values: bytes(twelve) }, 50257)).toThrow(
        'pixel_values are for image-to-text models only; this model takes input_ids alone',
      );
    });
  });
});
