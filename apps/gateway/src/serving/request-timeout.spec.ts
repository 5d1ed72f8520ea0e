import { describe, expect, it } from 'vitest';
import { GENERATION_MS_PER_TOKEN, generationTimeoutMs, requestTimeoutMs } from './request-timeout.js';

describe('requestTimeoutMs', () => {
  const model = { batching: { defaultTimeoutMs: 2500 } };

  it("takes the endpoint's timeoutMs when it sets one", () => {
    expect(requestTimeoutMs({ timeoutMs: 400 }, model)).toBe(400);
  });

  it("falls back to the model's defaultTimeoutMs when the endpoint sets none", () => {
    expect(requestTimeoutMs({}, model)).toBe(2500);
    expect(requestTimeoutMs({ timeoutMs: undefined }, model)).toBe(2500);
  });
});

describe('generationTimeoutMs', () => {
  const model = { batching: { defaultTimeoutMs: 10_000 } };

  it("scales the default with the tokens a generation may take, so max_new_tokens 4096 does not time out at the model's 10 s", () => {
    expect(generationTimeoutMs({}, model, 20)).toBe(10_000 + 20 * GENERATION_MS_PER_TOKEN);
    expect(generationTimeoutMs({}, model, 4096)).toBe(10_000 + 4096 * GENERATION_MS_PER_TOKEN);
  });

  it("keeps the endpoint's timeoutMs as the bound of the whole generation", () => {
    expect(generationTimeoutMs({ timeoutMs: 400 }, model, 4096)).toBe(400);
  });
});
