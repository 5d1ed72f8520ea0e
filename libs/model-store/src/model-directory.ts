/**
 * A loadable model directory for ONNX external data: onnxruntime reads an initializer stored
 * outside the graph from the file its `location` names, relative to the model file's directory.
 * Verified files live in the cache under their digests, so a model with external data gets a
 * directory of its own holding `model.onnx` and each external file under the name the graph
 * records, as links to the verified files. An image-to-text model's encoder graph joins its decoder
 * there as `encoder_model.onnx`.
 */
import { createHash } from 'node:crypto';
import { link, mkdir, mkdtemp, rename, rm, stat, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  ErrorCode,
  isExternalDataName,
  MODEL_FILE_NAME,
  ModelgateError,
  ENCODER_MODEL_FILE,
} from '@modelgate/contracts';
import { isDirectory } from './bundle-extract.js';

/** A verified file: where it lies in the cache and its digest. */
export interface VerifiedFile {
  path: string;
  sha256: string;
}

/** A verified external data file and the name the graph reads it by. */
export interface NamedVerifiedFile extends VerifiedFile {
  name: string;
}

/** The name of an encoder graph (image-to-text) in its model's directory, beside the decoder's `model.onnx`. */
export const ENCODER_FILE_NAME = ENCODER_MODEL_FILE;

/**
 * The path of `model.onnx` in `<root>/<key>/`, a directory holding the model file, every
 * external data file under its name and, when given, the encoder as `encoder_model.onnx` (hard links to the verified files; symbolic links where the
 * file system refuses hard links, e.g. across devices). `key` is the SHA-256 of the names and
 * digests, so the same files always give the same directory. The directory is built under
 * `tmpParent` and renamed into place: it is absent or complete, never half-made.
 */
export async function linkModelDirectory(
  root: string,
  tmpParent: string,
  model: VerifiedFile,
  externalData: readonly NamedVerifiedFile[],
  encoder?: VerifiedFile,
): Promise<string> {
  checkNames(externalData, encoder !== undefined);
  const entries = [
    { name: MODEL_FILE_NAME, path: model.path, sha256: model.sha256 },
    ...(encoder === undefined
      ? []
      : [{ name: ENCODER_FILE_NAME, path: encoder.path, sha256: encoder.sha256 }]),
    ...[...externalData].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
  ];
  const key = createHash('sha256')
    .update(entries.map((entry) => `${entry.name}\0${entry.sha256}`).join('\n'))
    .digest('hex');
  const dir = join(resolve(root), key);
  if (await isComplete(dir, entries)) return join(dir, MODEL_FILE_NAME);

  await Promise.all([mkdir(root, { recursive: true }), mkdir(tmpParent, { recursive: true })]);
  const temp = await mkdtemp(join(tmpParent, 'model-'));
  try {
    for (const entry of entries) await linkOrSymlink(resolve(entry.path), join(temp, entry.name));
    try {
      await rename(temp, dir);
    } catch (error) {
      // Another caller made the same directory first; theirs holds the same files.
      if (!(await isDirectory(dir))) throw error;
    }
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
  return join(dir, MODEL_FILE_NAME);
}

function checkNames(externalData: readonly NamedVerifiedFile[], withEncoder: boolean): void {
  const seen = new Set<string>();
  const taken = withEncoder ? [MODEL_FILE_NAME, ENCODER_FILE_NAME] : [MODEL_FILE_NAME];
  for (const { name } of externalData) {
    if (!isExternalDataName(name) || taken.includes(name) || seen.has(name)) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `external data file name ${JSON.stringify(name)} is not a plain, unique file name other than ${taken.join(' and ')}`,
        { field: 'externalData' },
      );
    }
    seen.add(name);
  }
}

async function isComplete(dir: string, entries: readonly { name: string }[]): Promise<boolean> {
  if (!(await isDirectory(dir))) return false;
  // stat follows a symbolic link: a link whose target is gone does not count.
  const found = await Promise.all(
    entries.map((entry) =>
      stat(join(dir, entry.name)).then(
        (info) => info.isFile(),
        () => false,
      ),
    ),
  );
  if (found.every(Boolean)) return true;
  await rm(dir, { recursive: true, force: true });
  return false;
}

async function linkOrSymlink(target: string, path: string): Promise<void> {
  try {
    await link(target, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw error;
    await symlink(target, path);
  }
}
