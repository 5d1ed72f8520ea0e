// A stable 32-bit hash of sticky route keys: MurmurHash3 (x86, 32-bit) over the key's UTF-8
// bytes. Its avalanche makes `hash % 100` uniform even for keys that differ in one character
// (user-1, user-2, …), which a plain FNV-1a modulo 100 is not.

const C1 = 0xcc9e2d51;
const C2 = 0x1b873593;
const encoder = new TextEncoder();

function mixFinal(hash: number): number {
  let h = hash;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** MurmurHash3_x86_32 of `key`'s UTF-8 bytes, as an unsigned 32-bit integer. */
export function murmur3(key: string, seed = 0): number {
  const bytes = encoder.encode(key);
  const blocks = bytes.length >>> 2;
  let h = seed >>> 0;
  for (let i = 0; i < blocks; i++) {
    const at = i * 4;
    let k =
      (bytes[at] ?? 0) |
      ((bytes[at + 1] ?? 0) << 8) |
      ((bytes[at + 2] ?? 0) << 16) |
      ((bytes[at + 3] ?? 0) << 24);
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const tail = blocks * 4;
  const rest = bytes.length & 3;
  if (rest > 0) {
    let k = bytes[tail] ?? 0;
    if (rest >= 2) k ^= (bytes[tail + 1] ?? 0) << 8;
    if (rest === 3) k ^= (bytes[tail + 2] ?? 0) << 16;
    k = Math.imul(k, C1);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, C2);
    h ^= k;
  }
  return mixFinal(h ^ bytes.length);
}
