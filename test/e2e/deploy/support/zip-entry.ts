import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

/**
 * Reads one file out of a zip archive (stored or deflated, no zip64), so tests need neither
 * `unzip` nor a zip package.
 */
export function readZipEntry(zipPath: string, entryName: string): Buffer {
  const zip = readFileSync(zipPath);
  const end = findEndOfCentralDirectory(zip);
  const entries = zip.readUInt16LE(end + 10);
  let offset = zip.readUInt32LE(end + 16);
  for (let i = 0; i < entries; i++) {
    if (zip.readUInt32LE(offset) !== CENTRAL_DIRECTORY_ENTRY)
      throw new Error(`${zipPath}: corrupt central directory`);
    const method = zip.readUInt16LE(offset + 10);
    const compressedSize = zip.readUInt32LE(offset + 20);
    const size = zip.readUInt32LE(offset + 24);
    const nameLength = zip.readUInt16LE(offset + 28);
    const extraLength = zip.readUInt16LE(offset + 30);
    const commentLength = zip.readUInt16LE(offset + 32);
    const localHeader = zip.readUInt32LE(offset + 42);
    const name = zip.toString('utf8', offset + 46, offset + 46 + nameLength);
    if (name === entryName) {
      if (compressedSize === 0xffffffff || size === 0xffffffff)
        throw new Error(`${entryName}: zip64 not supported`);
      return readLocalEntry(zip, localHeader, method, compressedSize, size);
    }
    offset += 46 + nameLength + extraLength + commentLength;
  }
  throw new Error(`${zipPath} has no entry ${entryName}`);
}

function findEndOfCentralDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of up to 64 KiB, at the very end.
  for (let offset = zip.length - 22; offset >= Math.max(0, zip.length - 22 - 0xffff); offset--) {
    if (zip.readUInt32LE(offset) === END_OF_CENTRAL_DIRECTORY) return offset;
  }
  throw new Error('not a zip file (no end of central directory record)');
}

function readLocalEntry(
  zip: Buffer,
  header: number,
  method: number,
  compressedSize: number,
  size: number,
): Buffer {
  if (zip.readUInt32LE(header) !== LOCAL_FILE_HEADER) throw new Error('corrupt local file header');
  const start = header + 30 + zip.readUInt16LE(header + 26) + zip.readUInt16LE(header + 28);
  const data = zip.subarray(start, start + compressedSize);
  const content =
    method === STORED ? Buffer.from(data) : method === DEFLATED ? inflateRawSync(data) : undefined;
  if (content === undefined) throw new Error(`unsupported zip compression method ${method}`);
  if (content.length !== size) throw new Error(`zip entry is ${content.length} bytes, expected ${size}`);
  return content;
}
