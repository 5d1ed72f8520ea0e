// Test support for the image request specs: encoded-image headers and the shared limits.

/** Image limits small enough to trip in tests. */
export const LIMITS = { maxImageBytes: 1000, maxImagePixels: 10_000 };

/** A PNG header (enough for every check before decoding) of the given size, zero-padded to `padTo` bytes. */
export function png(width: number, height: number, padTo = 0): Buffer {
  const header = Buffer.alloc(Math.max(33, padTo));
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]).copy(header);
  header.write('IHDR', 12, 'latin1');
  header.writeUInt32BE(width, 16);
  header.writeUInt32BE(height, 20);
  return header;
}

/** What `run` threw (its code and message), or {} when it did not throw. */
export function refusal(run: () => unknown): { code?: string; message?: string } {
  try {
    run();
    return {};
  } catch (error) {
    return error as { code?: string; message?: string };
  }
}
