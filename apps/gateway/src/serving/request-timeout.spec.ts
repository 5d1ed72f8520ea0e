import { describe, expect, it } from 'vitest';
import { requestTimeoutMs } from './request-timeout.js';

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
