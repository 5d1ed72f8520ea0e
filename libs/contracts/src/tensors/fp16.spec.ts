import { describe, expect, it } from 'vitest';
import { float32ArrayToFp16, float32ToFp16, fp16ArrayToFloat32, fp16ToFloat32 } from './fp16.js';

const f32 = (value: number): number => Math.fround(value);

function isNaNBits(bits: number): boolean {
  return (bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0;
}

describe('fp16ToFloat32', () => {
  it.each(
    [
      [0x0000, 0],
      [0x3c00, 1],
      [0xc000, -2],
      [0x3555, 0.333251953125],
      [0x7bff, 65504],
      [0x0400, 2 ** -14],
      [0x0001, 2 ** -24],
      [0x03ff, 1023 * 2 ** -24],
      [0x7c00, Infinity],
      [0xfc00, -Infinity],
    ].map(([bits = 0, value]) => ({ hex: `0x${bits.toString(16).padStart(4, '0')}`, bits, value })),
  )('reads $hex as $value', ({ bits, value }) => {
    expect(fp16ToFloat32(bits)).toBe(value);
  });

  it('keeps the sign of negative zero', () => {
    expect(Object.is(fp16ToFloat32(0x8000), -0)).toBe(true);
  });

  it('reads every NaN pattern as NaN', () => {
    expect(fp16ToFloat32(0x7e00)).toBeNaN();
    expect(fp16ToFloat32(0xfc01)).toBeNaN();
  });
});

describe('float32ToFp16', () => {
  it('round-trips every one of the 65536 bit patterns (NaNs stay NaN)', () => {
    for (let bits = 0; bits <= 0xffff; bits++) {
      const back = float32ToFp16(fp16ToFloat32(bits));
      if (isNaNBits(bits)) expect(isNaNBits(back)).toBe(true);
      else if (back !== bits) expect.fail(`0x${bits.toString(16)} came back as 0x${back.toString(16)}`);
    }
  });

  it('rounds every midpoint between neighbouring halves to the even one, and nudged values to the nearer', () => {
    for (let bits = 0; bits < 0x7bff; bits++) {
      const low = fp16ToFloat32(bits);
      const high = fp16ToFloat32(bits + 1);
      const midpoint = (low + high) / 2;
      const even = bits % 2 === 0 ? bits : bits + 1;
      const results = [
        float32ToFp16(midpoint),
        float32ToFp16(-midpoint) & 0x7fff,
        float32ToFp16(midpoint - (high - low) / 1024),
        float32ToFp16(midpoint + (high - low) / 1024),
      ];
      if (results.join() !== [even, even, bits, bits + 1].join()) {
        expect.fail(`midpoint of 0x${bits.toString(16)}: got ${results.map((r) => r.toString(16)).join()}`);
      }
    }
  });

  it('rounds a float64 once, not via float32 (no double rounding)', () => {
    // Just above the 1 / 1+2^-10 midpoint, by less than float32 can hold.
    const justAboveMidpoint = 1 + 2 ** -11 + 2 ** -40;
    expect(f32(justAboveMidpoint)).toBe(1 + 2 ** -11);
    expect(float32ToFp16(justAboveMidpoint)).toBe(0x3c01);
  });

  it('overflows past the largest half to infinity, keeping the sign', () => {
    expect(float32ToFp16(65504)).toBe(0x7bff);
    expect(float32ToFp16(65519.99)).toBe(0x7bff);
    expect(float32ToFp16(65520)).toBe(0x7c00);
    expect(float32ToFp16(1e10)).toBe(0x7c00);
    expect(float32ToFp16(-1e10)).toBe(0xfc00);
    expect(float32ToFp16(Infinity)).toBe(0x7c00);
    expect(float32ToFp16(-Infinity)).toBe(0xfc00);
  });

  it('rounds tiny values to signed zero or the smallest subnormal', () => {
    expect(float32ToFp16(2 ** -25)).toBe(0x0000);
    expect(float32ToFp16(2 ** -25 * 1.0001)).toBe(0x0001);
    expect(float32ToFp16(-(2 ** -26))).toBe(0x8000);
    expect(float32ToFp16(1e-30)).toBe(0x0000);
    expect(float32ToFp16(Number.MIN_VALUE)).toBe(0x0000);
    expect(float32ToFp16(-0)).toBe(0x8000);
  });

  it('rounds the largest subnormal up into the smallest normal', () => {
    const largestSubnormal = 1023 * 2 ** -24;
    expect(float32ToFp16(largestSubnormal + 2 ** -25 * 1.5)).toBe(0x0400);
  });

  it('turns NaN into a quiet NaN', () => {
    const bits = float32ToFp16(Number.NaN);
    expect(isNaNBits(bits)).toBe(true);
    expect(bits & 0x0200).toBe(0x0200);
  });
});

describe('fp16 array helpers', () => {
  it('convert whole arrays both ways', () => {
    const values = new Float32Array([0, -1.5, 0.1, 65504, -Infinity]);
    const bits = float32ArrayToFp16(values);
    expect(Array.from(bits)).toEqual([0x0000, 0xbe00, 0x2e66, 0x7bff, 0xfc00]);
    expect(Array.from(fp16ArrayToFloat32(bits))).toEqual([0, -1.5, f32(0.0999755859375), 65504, -Infinity]);
  });
});
