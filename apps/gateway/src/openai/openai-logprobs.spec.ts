import { describe, expect, it } from 'vitest';
import { type TextLogprob } from '../serving/generation/generation-events.js';
import { LOGPROB_FLOOR, chatLogprobs, completionLogprobs } from './openai-logprobs.js';

const ENTRIES: TextLogprob[] = [
  {
    token: ' é',
    logprob: -0.25,
    top: [
      { token: ' é', logprob: -0.25 },
      { token: ' a', logprob: -2 },
    ],
  },
  { token: '<|im_end|>', logprob: -Infinity, top: [{ token: '!', logprob: -0.1 }] },
];

describe('OpenAI logprobs shapes', () => {
  it("chat: one entry per token with its text's UTF-8 bytes and its alternatives", () => {
    expect(chatLogprobs(ENTRIES)).toEqual({
      content: [
        {
          token: ' é',
          logprob: -0.25,
          bytes: [0x20, 0xc3, 0xa9],
          top_logprobs: [
            { token: ' é', logprob: -0.25, bytes: [0x20, 0xc3, 0xa9] },
            { token: ' a', logprob: -2, bytes: [0x20, 0x61] },
          ],
        },
        {
          token: '<|im_end|>',
          logprob: LOGPROB_FLOOR,
          bytes: [...Buffer.from('<|im_end|>')],
          top_logprobs: [{ token: '!', logprob: -0.1, bytes: [0x21] }],
        },
      ],
      refusal: null,
    });
  });

  it('completions: parallel lists, offsets counted from where the entries start, -Infinity as the floor', () => {
    expect(completionLogprobs(ENTRIES, 5)).toEqual({
      tokens: [' é', '<|im_end|>'],
      token_logprobs: [-0.25, LOGPROB_FLOOR],
      top_logprobs: [{ ' é': -0.25, ' a': -2 }, { '!': -0.1 }],
      text_offset: [5, 7],
    });
  });

  it('completions: alternatives with the same text keep the likelier, and any text is a plain key', () => {
    const entry: TextLogprob = {
      token: 'x',
      logprob: -1,
      top: [
        { token: '__proto__', logprob: -1 },
        { token: 'x', logprob: -1.5 },
        { token: 'x', logprob: -3 },
      ],
    };
    const [top] = completionLogprobs([entry], 0).top_logprobs;
    expect(Object.keys(top!)).toEqual(['__proto__', 'x']);
    expect(top!.x).toBe(-1.5);
    expect(JSON.parse(JSON.stringify(top))).toEqual({ ['__proto__']: -1, x: -1.5 });
  });
});
