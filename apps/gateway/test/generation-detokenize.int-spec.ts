// Incremental detokenization with the real GPT-2 byte-level tokenizer of the tiny-gpt2 fixture:
// tokens that carry part of a character's UTF-8 bytes never surface as U+FFFD in a delta.
import { type GenerateCall, type GenerateChunk } from '@modelgate/inference-client';
import { type TextTokenizer, loadTokenizerFromDir } from '@modelgate/processing';
import { ensureFixture } from '@modelgate/fixtures';
import { beforeAll, describe, expect, it } from 'vitest';
import { generationEvents } from '../src/serving/generation/generation-events.js';
import { decodeSkippingSpecial } from '../src/serving/generation/prompt-limits.js';

/** A finished worker stream replayed: `ids` in messages of `perMessage` tokens. */
function replay(ids: number[], perMessage: number): GenerateCall {
  const chunks: GenerateChunk[] = [];
  for (let i = 0; i < ids.length; i += perMessage) {
    const tokenIds = ids.slice(i, i + perMessage);
    const last = i + perMessage >= ids.length;
    chunks.push({
      tokenIds,
      promptTokens: 1,
      generatedTokens: i + tokenIds.length,
      ...(last ? { finishReason: 'length' as const } : {}),
    });
  }
  return {
    worker: 'replay',
    attempts: 1,
    cancel: () => undefined,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) yield await Promise.resolve(chunk);
    },
  };
}

const silent = { firstToken: () => undefined, tokens: () => undefined, ended: () => undefined };

describe('generation deltas with the GPT-2 tokenizer', () => {
  let tokenizer: TextTokenizer;

  beforeAll(async () => {
    tokenizer = await loadTokenizerFromDir(await ensureFixture('tiny-gpt2'));
  });

  const texts = ['Emoji 😀🎉 party', '我喜欢吃苹果，你呢？', 'café — naïve 👩‍👩‍👧 ok', '🤖'];

  it.each(texts)('splits %s into deltas without U+FFFD whose concatenation is the text', async (text) => {
    const ids = tokenizer.tokenize(text);
    const decode = decodeSkippingSpecial(tokenizer);
    // The case is real: some tokens alone are part of a character.
    expect(ids.some((id) => decode([id]).includes('\uFFFD'))).toBe(true);
    for (const perMessage of [1, 2, 3]) {
      const deltas: string[] = [];
      let endText = '';
      const events = generationEvents(replay(ids, perMessage), {
        decode,
        stop: [],
        promptTokens: 1,
        now: () => 0,
        startedAt: 0,
        firstTokenAt: 0,
        recorder: silent,
      });
      for await (const event of events) {
        if (event.type === 'delta') deltas.push(event.text);
        else endText = event.text;
      }
      expect(deltas.filter((delta) => delta.includes('\uFFFD'))).toEqual([]);
      expect(deltas.join('')).toBe(text);
      expect(endText).toBe(text);
    }
  });
});
