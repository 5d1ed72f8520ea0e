import { lstat, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { unpackBundle } from './tar-bundle.js';

/**
 * Unpacks a ustar bundle into `dir`, atomically: the files are written to a fresh directory under
 * `tmpParent` (same file system) and renamed into place, so `dir` is either absent or complete.
 * When another process finishes the same `dir` first, its copy is kept and ours discarded.
 */
export async function extractBundle(archive: Uint8Array, dir: string, tmpParent: string): Promise<void> {
  const files = unpackBundle(archive);
  await Promise.all([mkdir(dirname(dir), { recursive: true }), mkdir(tmpParent, { recursive: true })]);
  const tempDir = await mkdtemp(join(tmpParent, 'bundle-'));
  try {
    for (const [name, data] of Object.entries(files)) {
      await writeBundleEntry(tempDir, name, data);
    }
    try {
      await rename(tempDir, dir);
    } catch (error) {
      // Another process extracted the same digest first: its directory is as good as ours.
      if (!(await isDirectory(dir))) throw error;
    }
  } finally {
    await rm(tempDir, { recursive: true, force: true });
  }
}

/** True when `path` is a directory (not a symlink to one). */
export async function isDirectory(path: string): Promise<boolean> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isDirectory() ?? false;
}

async function writeBundleEntry(root: string, name: string, data: Buffer): Promise<void> {
  const target = resolve(root, name);
  const rel = relative(root, target);
  // unpackBundle already refused unsafe names; this keeps the write itself honest.
  if (rel === '' || isAbsolute(rel) || rel.split(sep)[0] === '..') {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `unsafe bundle entry name ${JSON.stringify(name)}`);
  }
  try {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, data, { flag: 'wx', mode: 0o644 });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR') {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `bundle entry "${name}" collides with another entry`,
      );
    }
    throw error;
  }
}
