import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelgate/contracts';
import { openFileSource, resolveFileUri } from './file-source.js';

describe('resolveFileUri', () => {
  let base: string;
  let root: string;
  let otherRoot: string;

  beforeAll(() => {
    base = realpathSync(mkdtempSync(join(tmpdir(), 'file-source-')));
    root = join(base, 'models');
    otherRoot = join(base, 'more-models');
    mkdirSync(join(root, 'bert'), { recursive: true });
    mkdirSync(otherRoot);
    mkdirSync(join(base, 'outside'));
    writeFileSync(join(root, 'bert', 'model.onnx'), 'weights');
    writeFileSync(join(base, 'outside', 'secret'), 'secret');
    symlinkSync(join(base, 'outside', 'secret'), join(root, 'escape'));
    symlinkSync(join(base, 'outside'), join(root, 'escape-dir'));
    symlinkSync(join(root, 'bert', 'model.onnx'), join(root, 'alias.onnx'));
    symlinkSync(root, join(base, 'models-link'));
  });

  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
  });

  const uriOf = (path: string) => pathToFileURL(path).href;

  it('resolves a file inside a root to its real path', async () => {
    await expect(resolveFileUri(uriOf(join(root, 'bert', 'model.onnx')), [root])).resolves.toBe(
      join(root, 'bert', 'model.onnx'),
    );
    await expect(resolveFileUri(`file://localhost${join(root, 'bert', 'model.onnx')}`, [root])).resolves.toBe(
      join(root, 'bert', 'model.onnx'),
    );
  });

  it('follows a symlink that stays inside the roots', async () => {
    await expect(resolveFileUri(uriOf(join(root, 'alias.onnx')), [root])).resolves.toBe(
      join(root, 'bert', 'model.onnx'),
    );
  });

  it('accepts a root given through a symlink', async () => {
    await expect(
      resolveFileUri(uriOf(join(root, 'bert', 'model.onnx')), [join(base, 'models-link')]),
    ).resolves.toBe(join(root, 'bert', 'model.onnx'));
  });

  it.each(['escape', 'escape-dir/secret'])(
    'refuses the symlink escape %s, naming the roots',
    async (name) => {
      await expect(resolveFileUri(uriOf(join(root, name)), [root, otherRoot])).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        message: expect.stringContaining(`outside the allowed file roots (${root}, ${otherRoot})`) as unknown,
      });
    },
  );

  it('refuses a path outside every root without looking at it', async () => {
    await expect(resolveFileUri(uriOf(join(base, 'outside', 'secret')), [root])).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
    await expect(resolveFileUri(uriOf(join(base, 'outside', 'missing')), [root])).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
    await expect(resolveFileUri(uriOf(`${root}-sibling/x`), [root])).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
  });

  it.each([
    '/../outside/secret',
    '/bert/../../outside/secret',
    '/%2e%2e/outside/secret',
    '/.%2E/outside/secret',
    '/bert/..',
  ])('refuses the ".." segment in root + %s before resolving', async (suffix) => {
    await expect(resolveFileUri(`file://${root}${suffix}`, [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining('".." segment') as unknown,
    });
  });

  it('refuses a missing file, a directory, a remote host and an empty root list', async () => {
    await expect(resolveFileUri(uriOf(join(root, 'nope.onnx')), [root])).rejects.toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
    await expect(resolveFileUri(uriOf(join(root, 'bert')), [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining('not a regular file') as unknown,
    });
    await expect(resolveFileUri(uriOf(root), [root])).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
    });
    await expect(resolveFileUri(`file://fileserver${root}/bert/model.onnx`, [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
    });
    await expect(resolveFileUri(uriOf(join(root, 'bert', 'model.onnx')), [])).rejects.toMatchObject({
      code: ErrorCode.PERMISSION_DENIED,
      message: expect.stringContaining('no fileRoots configured') as unknown,
    });
    await expect(resolveFileUri(`file://${root}/a%2Fb`, [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
    });
  });

  it('refuses a name too long and a symlink loop as bad paths, not as failures of the machine', async () => {
    symlinkSync(join(root, 'loop-b'), join(root, 'loop-a'));
    symlinkSync(join(root, 'loop-a'), join(root, 'loop-b'));
    await expect(resolveFileUri(uriOf(join(root, 'loop-a')), [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining('its symbolic links loop') as unknown,
    });
    await expect(resolveFileUri(uriOf(join(root, `${'x'.repeat(300)}.onnx`)), [root])).rejects.toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      message: expect.stringContaining('the path or one of its names is too long') as unknown,
    });
  });

  it('opens a file for streaming but refuses one over maxBytes', async () => {
    const source = await openFileSource(uriOf(join(root, 'bert', 'model.onnx')), [root], 100);
    expect(source.declaredBytes).toBe(7);
    const chunks: Buffer[] = [];
    for await (const chunk of source.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('weights');
    await expect(openFileSource(uriOf(join(root, 'bert', 'model.onnx')), [root], 6)).rejects.toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
    });
  });
});
