import { describe, expect, it } from 'vitest';
import { resolveRequestId } from './request-id.js';
import { formatServerTiming, parseServerTiming } from './server-timing.js';

describe('formatServerTiming', () => {
  it('writes stages in order with two decimals and parses back', () => {
    const header = formatServerTiming([
      ['tokenize', 0.123],
      ['infer', 3.4],
    ]);
    expect(header).toBe('tokenize;dur=0.12, infer;dur=3.40');
    expect([...parseServerTiming(header)]).toEqual([
      ['tokenize', 0.12],
      ['infer', 3.4],
    ]);
  });
});

describe('resolveRequestId', () => {
  it('echoes a safe client id and replaces an unsafe one', () => {
    expect(resolveRequestId('abc-123')).toBe('abc-123');
    expect(resolveRequestId('bad id\n')).toMatch(/^[0-9a-f-]{36}$/);
    expect(resolveRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
