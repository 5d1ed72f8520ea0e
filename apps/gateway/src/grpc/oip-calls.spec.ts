import { describe, expect, it } from 'vitest';
import { MAX_STATUS_MESSAGE_CHARS, clipStatusMessage } from './oip-calls.js';

describe('status messages of the gRPC face', () => {
  it('keeps a message of up to MAX_STATUS_MESSAGE_CHARS characters as it is', () => {
    const message = `unknown model '${'m'.repeat(MAX_STATUS_MESSAGE_CHARS - 16)}'`;
    expect(message).toHaveLength(MAX_STATUS_MESSAGE_CHARS);
    expect(clipStatusMessage(message)).toBe(message);
  });

  it('cuts a longer one (a huge name echoed) to MAX_STATUS_MESSAGE_CHARS characters, ending with an ellipsis', () => {
    const clipped = clipStatusMessage(`unknown model '${'m'.repeat(200_000)}'`);
    expect(clipped).toHaveLength(MAX_STATUS_MESSAGE_CHARS);
    expect(clipped.startsWith("unknown model 'mmm")).toBe(true);
    expect(clipped.endsWith('m…')).toBe(true);
  });

  it('counts characters by code point and never leaves half a surrogate pair, which grpc-js cannot encode', () => {
    const clipped = clipStatusMessage('💥'.repeat(MAX_STATUS_MESSAGE_CHARS + 1));
    expect(Array.from(clipped)).toHaveLength(MAX_STATUS_MESSAGE_CHARS);
    expect(() => encodeURI(clipped)).not.toThrow();
    // Under the limit in code points though over it in UTF-16 units: kept whole.
    const emoji = '💥'.repeat(MAX_STATUS_MESSAGE_CHARS);
    expect(clipStatusMessage(emoji)).toBe(emoji);
  });
});
