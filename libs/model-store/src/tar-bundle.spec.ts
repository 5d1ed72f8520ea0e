import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packBundle, unpackBundle } from './tar-bundle.js';

const tokenizerFiles = {
  'tokenizer.json': '{"model":{"type":"WordPiece"}}',
  'tokenizer_config.json': '{"do_lower_case":true}',
  'config.json': new Uint8Array(Buffer.from('{"architectures":["BertForSequenceClassification"]}')),
};

/** A one-entry ustar header with a valid checksum, for hand-made hostile archives. */
function hostileArchive(name: string, typeflag = '0', body = 'x'): Uint8Array {
  const archive = Buffer.from(packBundle({ placeholder: body }));
  archive.fill(0, 0, 100);
  archive.write(name, 0, 'utf8');
  archive.write(typeflag, 156, 'ascii');
  archive.fill(0x20, 148, 156);
  let sum = 0;
  for (let i = 0; i < 512; i += 1) sum += archive[i] ?? 0;
  archive.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return archive;
}

describe('packBundle / unpackBundle', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('round-trips files, strings as UTF-8, including empty and multi-block entries', () => {
    const big = new Uint8Array(1500).map((_, i) => i % 251);
    const files = unpackBundle(
      packBundle({ ...tokenizerFiles, 'empty.txt': '', 'sub/big.bin': big, 'é.txt': 'ü' }),
    );
    expect(Object.keys(files).sort()).toEqual(
      ['config.json', 'empty.txt', 'sub/big.bin', 'tokenizer.json', 'tokenizer_config.json', 'é.txt'].sort(),
    );
    expect(files['tokenizer.json']?.toString('utf8')).toBe(tokenizerFiles['tokenizer.json']);
    expect(files['empty.txt']?.length).toBe(0);
    expect(new Uint8Array(files['sub/big.bin'] ?? [])).toEqual(big);
    expect(files['é.txt']?.toString('utf8')).toBe('ü');
  });

  it('gives the same bytes whatever the insertion order, with 512-byte blocks', () => {
    const reversed = Object.fromEntries(Object.entries(tokenizerFiles).reverse());
    const a = packBundle(tokenizerFiles);
    const b = packBundle(reversed);
    expect(Buffer.compare(a, b)).toBe(0);
    expect(a.length % 512).toBe(0);
    expect(createHash('sha256').update(a).digest('hex')).toBe(createHash('sha256').update(b).digest('hex'));
  });

  it('writes an archive that tar lists and extracts, and reads one tar wrote', () => {
    dir = mkdtempSync(join(tmpdir(), 'tar-bundle-'));
    writeFileSync(join(dir, 'ours.tar'), packBundle(tokenizerFiles));
    const listing = execFileSync('tar', ['tvf', join(dir, 'ours.tar')], { encoding: 'utf8' });
    expect(listing).toMatch(/-rw-r--r-- 0\/0 .* config\.json/);
    expect(listing.trim().split('\n')).toHaveLength(3);

    writeFileSync(join(dir, 'a.json'), '{"a":1}');
    execFileSync('tar', ['--format=ustar', '-cf', 'theirs.tar', 'a.json'], { cwd: dir });
    const files = unpackBundle(readFileSync(join(dir, 'theirs.tar')));
    expect(files['a.json']?.toString()).toBe('{"a":1}');
  });

  it.each(['../evil', 'a/../../evil', '/etc/passwd', 'C:/x', 'a\\b', 'a//b', './a', 'dir/'])(
    'refuses the unsafe name %j when packing and unpacking',
    (name) => {
      expect(() => packBundle({ [name]: 'x' })).toThrow(/unsafe bundle entry name/);
      expect(() => unpackBundle(hostileArchive(name))).toThrow(/unsafe bundle entry name/);
    },
  );

  it.each([
    ['2', 'symbolic link'],
    ['1', 'hard link'],
    ['5', 'directory'],
    ['x', 'pax extended header'],
  ])('refuses typeflag %s (%s)', (typeflag, kind) => {
    expect(() => unpackBundle(hostileArchive('link', typeflag))).toThrow(`is a ${kind}`);
  });

  it('refuses a bad checksum, a truncated archive, duplicates and names of 100 bytes or more', () => {
    const archive = Buffer.from(packBundle(tokenizerFiles));
    const corrupt = Buffer.from(archive);
    corrupt[0] = 0x41;
    expect(() => unpackBundle(corrupt)).toThrow(/bad checksum/);
    expect(() => unpackBundle(archive.subarray(0, 600))).toThrow(/truncated inside "config.json"/);
    expect(() => unpackBundle(archive.subarray(0, archive.length - 1024))).toThrow(/no end-of-archive block/);
    const twice = Buffer.concat([hostileArchive('a').subarray(0, 1024), hostileArchive('a')]);
    expect(() => unpackBundle(twice)).toThrow(/"a" twice/);
    expect(() => packBundle({ ['n'.repeat(100)]: 'x' })).toThrow(/100 bytes/);
    expect(() => unpackBundle(Buffer.alloc(512, 1))).toThrow(/not a ustar archive/);
  });

  it('reads an empty bundle as no files', () => {
    expect(Object.keys(unpackBundle(packBundle({})))).toEqual([]);
  });
});
