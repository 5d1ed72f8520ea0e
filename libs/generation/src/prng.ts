// A small seeded PRNG: xoshiro128** (Blackman & Vigna) over 32-bit integers, its state filled by
// two splitmix32 streams, one from each 32-bit half of the seed, so that every integer seed below
// 2**53 gives a stream of its own (s0 is a bijection of the low half, s3 of the high half).

/** splitmix32 from `start`: each call advances it and returns a well-mixed 32-bit value. */
function splitmix32From(start: number): () => number {
  let mix = start | 0;
  return () => {
    mix = (mix + 0x9e3779b9) | 0;
    let z = mix;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** Returns floats in [0, 1) with 53 random bits; the same seed gives the same sequence. */
export function createPrng(seed: number): () => number {
  const low = splitmix32From(seed >>> 0);
  const high = splitmix32From(Math.floor(seed / 2 ** 32) >>> 0);
  let s0 = low();
  let s1 = (low() ^ high()) >>> 0;
  let s2 = (low() ^ high()) >>> 0;
  let s3 = high();
  if ((s0 | s1 | s2 | s3) === 0) s0 = 1;

  const next = (): number => {
    const result = Math.imul(rotl(Math.imul(s1, 5), 7), 9) >>> 0;
    const t = s1 << 9;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = rotl(s3, 11);
    return result;
  };
  return () => ((next() >>> 5) * 2 ** 26 + (next() >>> 6)) / 2 ** 53;
}

function rotl(x: number, k: number): number {
  return (x << k) | (x >>> (32 - k));
}
