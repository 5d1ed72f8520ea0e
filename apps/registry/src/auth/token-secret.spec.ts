import { generateToken } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { digestsEqual, hashToken, tokenFromAuthorization } from './token-secret.js';

describe('token secrets', () => {
  it('generates distinct, prefixed, url-safe tokens', () => {
    const a = generateToken();
    expect(a).toMatch(/^mgt_[A-Za-z0-9_-]{43}$/);
    expect(generateToken()).not.toBe(a);
  });

  it('stores sha256 hex and compares digests exactly', () => {
    const digest = hashToken('secret');
    expect(digest).toBe('2bb80d537b1da3e38bd30361aa855686bde0eacd7162fef6a25fe97bf527a25b');
    expect(digestsEqual(digest, hashToken('secret'))).toBe(true);
    expect(digestsEqual(digest, hashToken('secreT'))).toBe(false);
    expect(digestsEqual(digest, '')).toBe(false);
  });

  it('reads the token from Bearer, or from the password of Basic auth', () => {
    expect(tokenFromAuthorization('Bearer abc')).toBe('abc');
    expect(tokenFromAuthorization('bearer  abc ')).toBe('abc');
    expect(tokenFromAuthorization(`Basic ${Buffer.from('modelgate:tok').toString('base64')}`)).toBe('tok');
    expect(tokenFromAuthorization(`Basic ${Buffer.from('user-only').toString('base64')}`)).toBeUndefined();
    expect(tokenFromAuthorization('Bearer')).toBeUndefined();
    expect(tokenFromAuthorization('Digest x')).toBeUndefined();
    expect(tokenFromAuthorization(undefined)).toBeUndefined();
  });
});
