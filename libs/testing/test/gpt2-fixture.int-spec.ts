// The GPT-2 decoder fixture in onnxruntime: the Optimum with-past interface, a KV cache that gives
// exactly what rerunning the whole sequence gives, left-padded batches that give what each prompt
// gets alone, and greedy decoding identical to transformers.js' text-generation pipeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DECODER_DIMS,
  DecoderSession,
  GPT2_END_OF_TEXT,
  decoderInputs,
  decoderOutputs,
  ensureFixture,
  getFixtureSpec,
  transformersGreedy,
} from '../src/index.js';
import { type FixtureTokenizer, loadFixtureTokenizer, maxAbsDiff } from './fixture-session.js';

const FIXTURE = 'tiny-gpt2';
const spec = getFixtureSpec(FIXTURE);
const PROMPTS = ['Hello, my name is', 'The quick brown fox', 'CJK 我爱自然语言处理 and emoji 🤗', 'a'];
const NEW_TOKENS = 12;

let dir: string;
let decoder: DecoderSession;
let tokenizer: FixtureTokenizer;
const encode = (text: string) => tokenizer.encode(text, { add_special_tokens: false }).ids;

beforeAll(async () => {
  dir = await ensureFixture(FIXTURE);
  decoder = await DecoderSession.open(dir, spec);
  tokenizer = await loadFixtureTokenizer(dir);
});
afterAll(async () => {
  await decoder?.release();
});

describe('tiny-gpt2 graph interface', () => {
  it('takes input_ids, attention_mask, position_ids and past_key_values.N.key/value like an Optimum export', () => {
    const { session } = decoder;
    expect(session.inputNames).toEqual([
      'input_ids',
      'attention_mask',
      'position_ids',
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
    const shapes = (list: readonly { name: string; shape?: readonly (number | string)[] }[]) =>
      Object.fromEntries(list.map((entry) => [entry.name, entry.shape]));
    expect(shapes(session.inputMetadata as never)).toMatchObject({
      input_ids: ['batch_size', 'sequence_length'],
      attention_mask: ['batch_size', DECODER_DIMS.total],
      'past_key_values.0.key': ['batch_size', 4, 'past_sequence_length', 16],
    });
    expect(shapes(session.outputMetadata as never)).toMatchObject({
      logits: ['batch_size', 'sequence_length', 50257],
      'present.1.value': ['batch_size', 4, 'past_sequence_length + sequence_length', 16],
    });
    expect(decoderInputs(spec)).toHaveLength(3 + 2 * spec.numLayers);
    expect(decoderOutputs(spec)).toHaveLength(1 + 2 * spec.numLayers);
  });

  it('returns present = concat(past, new) on the sequence axis', async () => {
    const prompt = encode('Hello, my name is');
    const ones = (n: number) => [Array.from({ length: n }, () => 1)];
    const first = await decoder.step(
      [prompt],
      ones(prompt.length),
      [prompt.map((_, i) => i)],
      decoder.emptyCache(1),
    );
    const second = await decoder.step([[42]], ones(prompt.length + 1), [[prompt.length]], first.cache);
    const past = first.cache['past_key_values.1.key'];
    const present = second.cache['past_key_values.1.key'];
    expect(present?.dims).toEqual([1, 4, prompt.length + 1, 16]);
    const pastData = past?.data as Float32Array;
    const presentData = present?.data as Float32Array;
    for (let head = 0; head < 4; head += 1) {
      const from = (offset: number, length: number) => presentData.subarray(offset, offset + length);
      const rows = prompt.length * 16;
      expect(from(head * (rows + 16), rows)).toEqual(pastData.subarray(head * rows, (head + 1) * rows));
    }
  });
});

describe('tiny-gpt2 greedy decoding', () => {
  it.each(PROMPTS)(
    'gives the same ids with the cache, without it and in transformers.js for %j',
    async (prompt) => {
      const ids = encode(prompt);
      const cached = await decoder.greedyCached(ids, NEW_TOKENS);
      expect(await decoder.greedyUncached(ids, NEW_TOKENS)).toEqual(cached);
      const reference = await transformersGreedy(dir, prompt, NEW_TOKENS);
      expect(reference.tokenIds).toEqual(cached);
      expect(reference.text).toBe(tokenizer.decode(cached, { skip_special_tokens: true }));
    },
  );

  it('wanders through varied tokens instead of repeating one', async () => {
    for (const prompt of PROMPTS) {
      const generated = await decoder.greedyCached(encode(prompt), 24);
      expect(generated).toHaveLength(24);
      expect(new Set(generated).size).toBeGreaterThanOrEqual(12);
      expect(generated).not.toContain(GPT2_END_OF_TEXT.id);
    }
    const firsts = await Promise.all(
      PROMPTS.map(async (prompt) => (await decoder.greedyCached(encode(prompt), 1))[0]),
    );
    expect(new Set(firsts).size).toBe(PROMPTS.length);
  });

  it('gives each prompt of a left-padded batch the logits and tokens it gets alone', async () => {
    const prompts = [encode('The quick brown fox jumps over the lazy dog'), encode('Hi')];
    const batched = await decoder.greedyBatched(prompts, NEW_TOKENS);
    for (const [row, prompt] of prompts.entries()) {
      const alone = await decoder.greedyBatched([prompt], NEW_TOKENS);
      expect(maxAbsDiff(batched.prefillLogits[row] ?? [], alone.prefillLogits[0] ?? [])).toBeLessThan(1e-4);
      expect(batched.generated[row]).toEqual(alone.generated[0]);
      expect(batched.generated[row]).toEqual(await decoder.greedyCached(prompt, NEW_TOKENS));
    }
  });
});
