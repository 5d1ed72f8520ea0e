import { invalidTensorError } from './tensor-errors.js';

const utf8 = new TextEncoder();

/** Bytes of the length prefix in front of every BYTES element. */
export const BYTES_LENGTH_PREFIX_SIZE = 4;

/**
 * The raw form of BYTES elements: for each, its length as a 4-byte little-endian unsigned
 * integer, then its bytes. Strings are encoded as UTF-8.
 */
export function writeBytesElements(
  elements: readonly (Uint8Array | string)[],
  tensorName?: string,
): Uint8Array {
  const encoded = elements.map((element, index) => {
    if (typeof element === 'string') return utf8.encode(element);
    if (element instanceof Uint8Array) return element;
    throw invalidTensorError(`BYTES element ${index} must be a Uint8Array or a string`, tensorName);
  });
  const total = encoded.reduce((sum, element) => sum + BYTES_LENGTH_PREFIX_SIZE + element.byteLength, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  let offset = 0;
  for (const element of encoded) {
    view.setUint32(offset, element.byteLength, true);
    out.set(element, offset + BYTES_LENGTH_PREFIX_SIZE);
    offset += BYTES_LENGTH_PREFIX_SIZE + element.byteLength;
  }
  return out;
}

/**
 * Exactly `count` length-prefixed elements read from `bytes`, as views into it (no copy).
 * Throws INVALID_ARGUMENT when the buffer ends early or has bytes left over.
 */
export function readBytesElements(bytes: Uint8Array, count: number, tensorName?: string): Uint8Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const elements: Uint8Array[] = [];
  let offset = 0;
  for (let index = 0; index < count; index++) {
    if (offset + BYTES_LENGTH_PREFIX_SIZE > bytes.byteLength) {
      throw invalidTensorError(
        `BYTES data ends at byte ${bytes.byteLength} inside the length prefix of element ${index} of ${count}`,
        tensorName,
      );
    }
    const length = view.getUint32(offset, true);
    const start = offset + BYTES_LENGTH_PREFIX_SIZE;
    if (start + length > bytes.byteLength) {
      throw invalidTensorError(
        `BYTES element ${index} of ${count} declares ${length} bytes but only ${bytes.byteLength - start} remain`,
        tensorName,
      );
    }
    elements.push(bytes.subarray(start, start + length));
    offset = start + length;
  }
  if (offset !== bytes.byteLength) {
    throw invalidTensorError(
      `BYTES data holds ${bytes.byteLength - offset} bytes after its ${count} elements`,
      tensorName,
    );
  }
  return elements;
}
