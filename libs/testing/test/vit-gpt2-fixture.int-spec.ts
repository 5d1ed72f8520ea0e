// The ViT + GPT-2 captioner fixture in onnxruntime: the vision-encoder-decoder layout transformers.js
// loads (encoder_model + decoder_model_merged), a KV cache that gives exactly what rerunning the
// whole sequence gives, greedy captions identical to transformers.js' image-to-text pipeline, and
// left-padded batches of sequences of different lengths, each with its own image's encoder states,
// that give each row what it gets alone (what continuous batching relies on).
import { readdir } from 'node:fs/promises';
import * as ort from 'onnxruntime-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CaptionSession,
  DECODER_START_TOKEN_ID,
  ENCODER_DECODER_DIMS,
  ENCODER_HIDDEN_STATES,
  GPT2_END_OF_TEXT,
  ensureFixture,
  getFixtureSpec,
  greedyCaption,
  testCard,
  transformersCaption,
  transformersPixelValues,
} from '../src/index.js';
import { type FixtureTokenizer, loadFixtureTokenizer, maxAbsDiff } from './fixture-session.js';

const FIXTURE = 'tiny-vit-gpt2';
const spec = getFixtureSpec(FIXTURE);
const CARDS = [testCard(300, 200, 3), testCard(64, 96, 11), testCard(224, 224, 29)];
const NEW_TOKENS = 12;
// 14 × 14 patches of 16 pixels plus [CLS].
const ENCODER_POSITIONS = 197;

let dir: string;
let captioner: CaptionSession;
let tokenizer: FixtureTokenizer;
let pixels: Float32Array[];

beforeAll(async () => {
  dir = await ensureFixture(FIXTURE);
  captioner = await CaptionSession.open(dir);
  tokenizer = await loadFixtureTokenizer(dir);
  pixels = await Promise.all(CARDS.map((card) => transformersPixelValues(dir, card)));
});
afterAll(async () => {
  await captioner?.release();
});

/** Rows of encoder states stacked into one [rows, positions, width] tensor. */
function stackStates(rows: readonly ort.Tensor[]): ort.Tensor {
  const width = rows[0]?.dims.at(-1) ?? 0;
  const size = ENCODER_POSITIONS * width;
  const data = new Float32Array(rows.length * size);
  rows.forEach((row, index) => data.set(row.data as Float32Array, index * size));
  return new ort.Tensor('float32', data, [rows.length, ENCODER_POSITIONS, width]);
}

describe('tiny-vit-gpt2 layout', () => {
  it('has the files of an Optimum vision-encoder-decoder export with the GPT-2 tokenizer', async () => {
    const files = (await readdir(dir, { recursive: true })).filter((file) => !file.startsWith('.')).sort();
    expect(files).toEqual([
      'config.json',
      'generation_config.json',
      'onnx',
      'onnx/decoder_model_merged.onnx',
      'onnx/encoder_model.onnx',
      'preprocessor_config.json',
      'special_tokens_map.json',
      'tokenizer.json',
      'tokenizer_config.json',
    ]);
  });

  it('takes pixel_values to last_hidden_state, and input_ids, masks, positions, encoder states and past to logits and present', () => {
    const shapes = (list: readonly { name: string; shape?: readonly (number | string)[] }[]) =>
      Object.fromEntries(list.map((entry) => [entry.name, entry.shape]));
    expect(shapes(captioner.encoder.inputMetadata as never)).toEqual({
      pixel_values: ['batch_size', 3, 224, 224],
    });
    expect(shapes(captioner.encoder.outputMetadata as never)).toEqual({
      last_hidden_state: ['batch_size', ENCODER_POSITIONS, 64],
    });
    const { session } = captioner.decoder;
    expect(session.inputNames).toEqual([
      'input_ids',
      'attention_mask',
      'position_ids',
      ENCODER_HIDDEN_STATES,
      'past_key_values.0.key',
      'past_key_values.0.value',
      'past_key_values.1.key',
      'past_key_values.1.value',
    ]);
    expect(session.outputNames).toEqual([
      'logits',
      'present.0.key',
      'present.0.value',
      'present.1.key',
      'present.1.value',
    ]);
    const { batch, sequence, past, total, encoder } = ENCODER_DECODER_DIMS;
    expect(shapes(session.inputMetadata as never)).toMatchObject({
      input_ids: [batch, sequence],
      attention_mask: [batch, total],
      position_ids: [batch, sequence],
      encoder_hidden_states: [batch, encoder, 64],
      'past_key_values.1.value': [batch, 4, past, 16],
    });
    expect(shapes(session.outputMetadata as never)).toMatchObject({
      logits: [batch, sequence, spec.vocabSize],
      'present.0.key': [batch, 4, total, 16],
    });
  });
});

describe('tiny-vit-gpt2 greedy captions', () => {
  it('gives the same ids with the cache as rerunning the whole sequence, and differs between images', async () => {
    const captions: number[][] = [];
    for (const image of pixels) {
      const cached = await captioner.greedy(image, NEW_TOKENS);
      expect(await captioner.greedy(image, NEW_TOKENS, { cache: false })).toEqual(cached);
      expect(await greedyCaption(dir, image, NEW_TOKENS)).toEqual(cached);
      expect(cached).toHaveLength(NEW_TOKENS);
      expect(cached).not.toContain(GPT2_END_OF_TEXT.id);
      captions.push(cached);
    }
    // A captioner that ignored its image would be a useless fixture.
    expect(new Set(captions.map((caption) => caption[0])).size).toBe(CARDS.length);
  });

  it.each(CARDS.map((card, index) => [index, card] as const))(
    'equals transformers.js image-to-text pipeline on test card %i, ids and text',
    async (index, card) => {
      const expected = await captioner.greedy(pixels[index] ?? new Float32Array(), NEW_TOKENS);
      const reference = await transformersCaption(dir, card, NEW_TOKENS);
      expect(reference.tokenIds).toEqual(expected);
      expect(reference.text).toBe(tokenizer.decode(expected, { skip_special_tokens: true }).trim());
    },
  );

  it('gives each row of a left-padded batch with its own encoder states what it gets alone', async () => {
    const [first = new Float32Array(), second = new Float32Array()] = pixels;
    const caption = await captioner.greedy(first, NEW_TOKENS);
    // Row 0 is four tokens into its caption, row 1 at its start: different lengths, different images.
    const prompts = [[DECODER_START_TOKEN_ID, ...caption.slice(0, 3)], [DECODER_START_TOKEN_ID]];
    const states = [await captioner.encode([first]), await captioner.encode([second])];
    const steps = 6;
    const batched = await captioner.decoder.greedyBatched(prompts, steps, {
      [ENCODER_HIDDEN_STATES]: stackStates(states),
    });
    for (const [row, prompt] of prompts.entries()) {
      const context = { [ENCODER_HIDDEN_STATES]: states[row] ?? stackStates([]) };
      const alone = await captioner.decoder.greedyBatched([prompt], steps, context);
      expect(maxAbsDiff(batched.prefillLogits[row] ?? [], alone.prefillLogits[0] ?? [])).toBeLessThan(1e-4);
      expect(batched.generated[row]).toEqual(alone.generated[0]);
    }
    expect(batched.generated[0]).toEqual(caption.slice(3, 3 + steps));
    expect(batched.generated[1]).toEqual((await captioner.greedy(second, steps)).slice(0, steps));
  });
});
