// IEEE 754 binary16 ("half", FP16) conversions. FP16 tensors are held as Uint16Array bit
// patterns because JavaScript has no 16-bit float array on Node 20.

const scratch = new DataView(new ArrayBuffer(8));

const HALF_SIGN = 0x8000;
const HALF_INFINITY = 0x7c00;
const HALF_QUIET_NAN = 0x7e00;

/**
 * The FP16 bit pattern nearest to `value` (round to nearest, ties to even), with subnormals,
 * overflow to ±Infinity, signed zeros and NaN (a quiet NaN keeping the sign) handled. Works
 * from the float64 bits, so a float64 input is rounded once, not via float32.
 */
export function float32ToFp16(value: number): number {
  scratch.setFloat64(0, value);
  const hi = scratch.getUint32(0);
  const lo = scratch.getUint32(4);
  const sign = (hi >>> 16) & HALF_SIGN;
  const exponent = (hi >>> 20) & 0x7ff;
  const fractionHi = hi & 0xfffff; // the top 20 of the 52 fraction bits

  if (exponent === 0x7ff) {
    const isNaN = fractionHi !== 0 || lo !== 0;
    return isNaN ? sign | HALF_QUIET_NAN | (fractionHi >>> 10) : sign | HALF_INFINITY;
  }

  // The exponent re-biased for FP16 (bias 15 instead of 1023).
  const halfExponent = exponent - 1023 + 15;
  if (halfExponent >= 0x1f) return sign | HALF_INFINITY;

  if (halfExponent >= 1) {
    // Normal result: keep 10 fraction bits; the 42 dropped bits decide the rounding.
    const kept = fractionHi >>> 10;
    const dropped = fractionHi & 0x3ff;
    const roundUp = dropped > 0x200 || (dropped === 0x200 && (lo !== 0 || (kept & 1) === 1));
    // A carry out of the fraction bumps the exponent, and past the top gives Infinity: both right.
    return sign | ((halfExponent << 10) + kept + (roundUp ? 1 : 0));
  }

  // Subnormal result (or zero). The significand with its implicit 1 is a 21-bit integer worth
  // 2^(halfExponent - 11) subnormal units (2^-24 each), so shift it right by 11 - halfExponent.
  const shift = 11 - halfExponent;
  if (shift > 21) return sign; // below half the smallest subnormal: rounds to ±0
  const significand = 0x100000 | fractionHi;
  const kept = significand >>> shift;
  const dropped = significand & ((1 << shift) - 1);
  const halfway = 1 << (shift - 1);
  const roundUp = dropped > halfway || (dropped === halfway && (lo !== 0 || (kept & 1) === 1));
  // Rounding the largest subnormal up lands on the smallest normal (0x0400): also right.
  return sign | (kept + (roundUp ? 1 : 0));
}

/** The number an FP16 bit pattern (low 16 bits of `bits`) stands for; exact. */
export function fp16ToFloat32(bits: number): number {
  const sign = (bits & HALF_SIGN) === 0 ? 1 : -1;
  const exponent = (bits >>> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * fraction * 2 ** -24;
  if (exponent === 0x1f) return fraction === 0 ? sign * Infinity : Number.NaN;
  return sign * (1 + fraction / 1024) * 2 ** (exponent - 15);
}

/** FP16 bit patterns of every value, e.g. a Float32Array of model inputs. */
export function float32ArrayToFp16(values: ArrayLike<number>): Uint16Array {
  const out = new Uint16Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = float32ToFp16(values[i] ?? Number.NaN);
  return out;
}

/** The float values of FP16 bit patterns, e.g. a model's FP16 output. */
export function fp16ArrayToFloat32(bits: Uint16Array): Float32Array {
  const out = new Float32Array(bits.length);
  for (let i = 0; i < bits.length; i++) out[i] = fp16ToFloat32(bits[i] ?? 0);
  return out;
}
