import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/*
 * Bundles (a tokenizer's tokenizer.json, tokenizer_config.json, config.json) are POSIX ustar
 * archives holding plain files only, so `tar cf` makes one and `tar tf` reads ours. The writer is
 * deterministic: entries sorted by name, mode 0644, uid/gid 0, mtime 0, empty owner names, so
 * the same files always give the same bytes, and so the same sha256.
 */

const BLOCK_BYTES = 512;
/** ustar's 11 octal digits of size: 8 GiB - 1. */
const MAX_ENTRY_BYTES = 0o77777777777;
/** The name field is 100 bytes; we keep it NUL-terminated and leave the prefix field unused. */
const MAX_NAME_BYTES = 99;

/** Header field offsets and lengths (POSIX.1-1988 ustar). */
const FIELD = {
  name: [0, 100],
  mode: [100, 8],
  uid: [108, 8],
  gid: [116, 8],
  size: [124, 12],
  mtime: [136, 12],
  checksum: [148, 8],
  typeflag: [156, 1],
  magic: [257, 6],
  version: [263, 2],
  prefix: [345, 155],
} as const satisfies Record<string, readonly [number, number]>;

/**
 * Writes `files` (name → contents; strings as UTF-8) as a deterministic ustar archive. Names are
 * relative `/`-separated paths under 100 bytes with no `.`/`..` segments; no directory entries are
 * written. Throws INVALID_ARGUMENT for a name or size ustar cannot hold safely.
 */
export function packBundle(files: Record<string, Uint8Array | string>): Uint8Array {
  const names = Object.keys(files).sort();
  const chunks: Buffer[] = [];
  for (const name of names) {
    checkEntryName(name);
    const nameBytes = Buffer.from(name, 'utf8');
    if (nameBytes.length > MAX_NAME_BYTES) {
      throw bundleError(
        `bundle entry name "${name}" is ${nameBytes.length} bytes; the limit is ${MAX_NAME_BYTES}`,
      );
    }
    const content = files[name];
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content ?? []);
    if (data.length > MAX_ENTRY_BYTES) throw bundleError(`bundle entry "${name}" is too large for ustar`);

    const header = Buffer.alloc(BLOCK_BYTES);
    nameBytes.copy(header, FIELD.name[0]);
    writeOctal(header, FIELD.mode, 0o644);
    writeOctal(header, FIELD.uid, 0);
    writeOctal(header, FIELD.gid, 0);
    writeOctal(header, FIELD.size, data.length);
    writeOctal(header, FIELD.mtime, 0);
    header.write('0', FIELD.typeflag[0], 'ascii');
    header.write('ustar\0', FIELD.magic[0], 'ascii');
    header.write('00', FIELD.version[0], 'ascii');
    // Six octal digits, NUL, space: the form GNU and BSD tar write.
    header.write(`${checksumOf(header).toString(8).padStart(6, '0')}\0 `, FIELD.checksum[0], 'ascii');

    chunks.push(header, data, Buffer.alloc(padding(data.length)));
  }
  chunks.push(Buffer.alloc(2 * BLOCK_BYTES));
  return new Uint8Array(Buffer.concat(chunks));
}

/**
 * Reads a ustar archive of plain files into name → contents. Throws INVALID_ARGUMENT for a bad
 * checksum, a truncated archive (also one missing its end-of-archive block), a duplicate name, an entry that is not a plain file (directory,
 * link, device, pax header), or a name that is absolute or has `..` segments.
 */
export function unpackBundle(bytes: Uint8Array): Record<string, Buffer> {
  const archive = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const files = Object.create(null) as Record<string, Buffer>;
  let offset = 0;
  while (offset < archive.length) {
    if (archive.length - offset < BLOCK_BYTES)
      throw bundleError('bundle is truncated (partial header block)');
    const header = archive.subarray(offset, offset + BLOCK_BYTES);
    if (header.every((byte) => byte === 0)) return files;

    const magic = readString(header, FIELD.magic);
    if (magic !== 'ustar' && magic !== 'ustar ')
      throw bundleError(`bundle is not a ustar archive at byte ${offset}`);
    if (readOctal(header, FIELD.checksum) !== checksumOf(header)) {
      throw bundleError(`bundle header at byte ${offset} has a bad checksum`);
    }
    const prefix = readString(header, FIELD.prefix);
    const name =
      prefix === '' ? readString(header, FIELD.name) : `${prefix}/${readString(header, FIELD.name)}`;
    const type = String.fromCharCode(header[FIELD.typeflag[0]] ?? 0);
    if (type !== '0' && type !== '\0') {
      throw bundleError(`bundle entry "${name}" is a ${describeType(type)}; bundles hold only plain files`);
    }
    checkEntryName(name);
    if (name in files) throw bundleError(`bundle has "${name}" twice`);

    const size = readOctal(header, FIELD.size);
    const start = offset + BLOCK_BYTES;
    if (start + size + padding(size) > archive.length)
      throw bundleError(`bundle is truncated inside "${name}"`);
    files[name] = Buffer.from(archive.subarray(start, start + size));
    offset = start + size + padding(size);
  }
  throw bundleError('bundle is truncated (no end-of-archive block)');
}

/** Refuses names that could land outside the extraction directory or collide oddly there. */
export function checkEntryName(name: string): void {
  const unsafe =
    name === '' ||
    name.startsWith('/') ||
    name.includes('\\') ||
    name.includes('\0') ||
    /^[a-zA-Z]:/.test(name) ||
    name.split('/').some((segment) => segment === '' || segment === '.' || segment === '..');
  if (unsafe) {
    throw bundleError(
      `unsafe bundle entry name ${JSON.stringify(name)}: use a relative path without . or ..`,
    );
  }
}

function checksumOf(header: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK_BYTES; i += 1) {
    const inChecksumField = i >= FIELD.checksum[0] && i < FIELD.checksum[0] + FIELD.checksum[1];
    sum += inChecksumField ? 0x20 : (header[i] ?? 0);
  }
  return sum;
}

function writeOctal(header: Buffer, [start, length]: readonly [number, number], value: number): void {
  header.write(`${value.toString(8).padStart(length - 1, '0')}\0`, start, 'ascii');
}

function readOctal(header: Buffer, field: readonly [number, number]): number {
  const text = readString(header, field).trim();
  if (!/^[0-7]+$/.test(text)) throw bundleError(`bundle header has a malformed number field "${text}"`);
  return parseInt(text, 8);
}

function readString(header: Buffer, [start, length]: readonly [number, number]): string {
  const field = header.subarray(start, start + length);
  const end = field.indexOf(0);
  return field.subarray(0, end === -1 ? length : end).toString('utf8');
}

function padding(size: number): number {
  return (BLOCK_BYTES - (size % BLOCK_BYTES)) % BLOCK_BYTES;
}

function describeType(type: string): string {
  const names: Record<string, string> = {
    '1': 'hard link',
    '2': 'symbolic link',
    '3': 'character device',
    '4': 'block device',
    '5': 'directory',
    '6': 'FIFO',
    x: 'pax extended header',
    g: 'pax global header',
    L: 'GNU long name',
  };
  return names[type] ?? `entry of type "${type}"`;
}

function bundleError(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message);
}
