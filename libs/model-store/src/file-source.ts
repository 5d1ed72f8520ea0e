import { constants as fsConstants } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { type Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { redactUri } from './redact-uri.js';

/** An opened artifact source: the bytes, and their length when the source knows it up front. */
export interface SourceStream {
  stream: Readable;
  declaredBytes?: number;
}

/**
 * The real path of the regular file a `file://` URI names, when it lies inside one of `roots`.
 * Refuses `..` segments (also percent-encoded) before anything is resolved, then resolves
 * symlinks with realpath so a link inside a root cannot reach outside it. Errors: INVALID_ARGUMENT
 * (malformed URI, `..`, not a regular file), PERMISSION_DENIED (outside every root),
 * NOT_FOUND (no such file inside a root).
 */
export async function resolveFileUri(uri: string, roots: readonly string[]): Promise<string> {
  const url = parseFileUrl(uri);
  const shown = redactUri(uri);
  if (roots.length === 0) {
    throw new ModelgateError(
      ErrorCode.PERMISSION_DENIED,
      `file:// URIs are disabled: no fileRoots configured`,
    );
  }
  let lexicalPath: string;
  try {
    lexicalPath = resolve(fileURLToPath(url));
  } catch (error) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${shown} is not a usable file path`,
      {},
      { cause: error },
    );
  }
  const rootPairs = await Promise.all(
    roots.map(async (root) => {
      const given = resolve(root);
      return { given, real: await realpath(given).catch(() => undefined) };
    }),
  );
  const outside = () =>
    new ModelgateError(
      ErrorCode.PERMISSION_DENIED,
      `${shown} is outside the allowed file roots (${rootPairs.map((root) => root.given).join(', ')})`,
    );
  // Checked before touching the file, so a URI outside the roots learns nothing about it.
  const lexicallyInside = rootPairs.some(
    ({ given, real }) => isInside(given, lexicalPath) || (real !== undefined && isInside(real, lexicalPath)),
  );
  if (!lexicallyInside) throw outside();

  let realPath: string;
  try {
    realPath = await realpath(lexicalPath);
  } catch (error) {
    throw notFoundOr(error, shown);
  }
  if (!rootPairs.some(({ real }) => real !== undefined && isInside(real, realPath))) throw outside();
  const info = await stat(realPath).catch((error: unknown) => {
    throw notFoundOr(error, shown);
  });
  if (!info.isFile()) throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown} is not a regular file`);
  return realPath;
}

/**
 * Opens the file a `file://` URI names (see {@link resolveFileUri}) for streaming. Refuses files
 * larger than `maxBytes` with PAYLOAD_TOO_LARGE before reading them.
 */
export async function openFileSource(
  uri: string,
  roots: readonly string[],
  maxBytes: number,
): Promise<SourceStream> {
  const realPath = await resolveFileUri(uri, roots);
  // O_NOFOLLOW: the real path has no symlink left; refuse one swapped in since (where supported).
  const handle = await open(realPath, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0)).catch(
    (error: unknown) => {
      throw notFoundOr(error, redactUri(uri));
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${redactUri(uri)} is not a regular file`);
    }
    if (info.size > maxBytes) {
      throw new ModelgateError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `${redactUri(uri)} is ${info.size} bytes, over the limit of ${maxBytes} bytes`,
      );
    }
    return { stream: handle.createReadStream(), declaredBytes: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Parses a `file:` URL, refusing `..` segments (URL parsing would silently fold them away). */
function parseFileUrl(uri: string): URL {
  const shown = redactUri(uri);
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown} is not a valid URI`);
  }
  if (url.protocol !== 'file:') {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown} is not a file:// URI`);
  }
  if (url.hostname !== '' && url.hostname !== 'localhost') {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${shown} names host "${url.hostname}"; file:// URIs must name a local path (file:///path)`,
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `${shown} has a query or fragment; file:// URIs may not`,
    );
  }
  const rawPath = uri.replace(/^file:(\/\/[^/\\]*)?/i, '').replace(/[?#].*$/, '');
  for (const segment of rawPath.split(/[/\\]/)) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown} has a malformed percent-encoding`);
    }
    if (decoded === '..') {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `${shown} has a ".." segment; give the direct path`,
      );
    }
    if (decoded.includes('\0')) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown} contains a NUL character`);
    }
  }
  return url;
}

/** True when `child` is strictly below `root` (not the root itself). */
function isInside(root: string, child: string): boolean {
  const rel = relative(root, child);
  return rel !== '' && !isAbsolute(rel) && rel.split(sep)[0] !== '..';
}

const PATH_FAULTS: Readonly<Record<string, string>> = {
  ENAMETOOLONG: 'the path or one of its names is too long',
  ELOOP: 'its symbolic links loop',
  EISDIR: 'is a directory, not a file',
};

function notFoundOr(error: unknown, shown: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'ENOENT' || code === 'ENOTDIR') {
    return new ModelgateError(ErrorCode.NOT_FOUND, `${shown}: no such file`, {}, { cause: error });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new ModelgateError(ErrorCode.PERMISSION_DENIED, `${shown}: not readable`, {}, { cause: error });
  }
  // Faults of the path given, not of this machine: a name too long, a symlink loop, a directory.
  const why = code === undefined ? undefined : PATH_FAULTS[code];
  if (why !== undefined) {
    return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${shown}: ${why}`, {}, { cause: error });
  }
  return error;
}
