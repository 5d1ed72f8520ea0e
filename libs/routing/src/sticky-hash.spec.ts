import { describe, expect, it } from 'vitest';
import { murmur3 } from './sticky-hash.js';

describe('murmur3', () => {
  it.each([
    ['', 0, 0],
    ['', 1, 0x514e28b7],
    ['', 0xffffffff, 0x81f16f39],
    ['a', 0, 0x3c2569b2],
    ['abc', 0, 0xb3dd93fa],
    ['test', 0, 0xba6bd213],
    ['Hello, world!', 0, 0xc0363e43],
    ['Hello, world!', 1234, 0xfaf6cdb3],
    ['The quick brown fox jumps over the lazy dog', 0, 0x2e4ff723],
  ])('hashes %j with seed %d to the reference MurmurHash3_x86_32 value', (key, seed, expected) => {
    expect(murmur3(key, seed)).toBe(expected);
  });

  it('hashes the UTF-8 bytes of non-ASCII keys', () => {
    expect(murmur3('é')).toBe(murmur3('\u00e9'));
    expect(murmur3('é')).not.toBe(murmur3('e\u0301'));
  });
});
