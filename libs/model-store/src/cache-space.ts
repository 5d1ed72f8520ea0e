/**
 * A full artifact cache, told apart from every other fetch failure. Writing into the cache fails
 * with ENOSPC (the file system is full) or EDQUOT (the quota is spent); both pass once space is
 * freed, unlike a corrupt or refused artifact, so callers keep trying without an operator
 * registering the model again (loadRetryDelayMs's `no-space` kind), and the reason a person reads
 * says "no space left on device" and names the cache.
 */
import { statfs } from 'node:fs/promises';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** errno codes of a write that found no room: the file system full, or the quota spent. */
const NO_SPACE_CODES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'no space left on device (disk quota exceeded)',
};

/** How deep `isNoSpaceError` follows `cause` (a wrapped error is wrapped a few times at most). */
const MAX_CAUSE_DEPTH = 8;

/** The errno code of the no-space failure in `error` or the errors it was caused by, if any. */
function noSpaceCode(error: unknown): string | undefined {
  let current = error;
  for (let depth = 0; current instanceof Error && depth < MAX_CAUSE_DEPTH; depth++) {
    const code = (current as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code in NO_SPACE_CODES) return code;
    current = current.cause;
  }
  return undefined;
}

/** True when `error`, or an error it was caused by, is a write that found no space (ENOSPC, EDQUOT). */
export function isNoSpaceError(error: unknown): boolean {
  return noSpaceCode(error) !== undefined;
}

/** Space left to an unprivileged writer, in bytes, as `statfs` reports it. */
export interface CacheSpace {
  freeBytes: number;
  totalBytes: number;
}

/**
 * The reason a person reads when writing `subject` into the cache at `cacheDir` found no space,
 * e.g. `no space left on device in the artifact cache /var/cache/mg while writing
 * file:///m/model.onnx (17216345 bytes; 12582912 of 16777216 bytes free); the partial copy was removed`.
 */
export function noSpaceReason(
  code: string,
  cacheDir: string,
  subject: string,
  neededBytes: number | undefined,
  space: CacheSpace | undefined,
): string {
  const facts = [
    ...(neededBytes === undefined ? [] : [`${neededBytes} bytes`]),
    ...(space === undefined ? [] : [`${space.freeBytes} of ${space.totalBytes} bytes free`]),
  ];
  const shown = facts.length === 0 ? subject : `${subject} (${facts.join('; ')})`;
  const what = NO_SPACE_CODES[code] ?? NO_SPACE_CODES.ENOSPC!;
  return `${what} in the artifact cache ${cacheDir} while writing ${shown}; the partial copy was removed`;
}

/**
 * UNAVAILABLE with `noSpaceReason` when `error` is a no-space failure of a write into `cacheDir`
 * (call it once the partial files are removed: the free space it reports is what is left then),
 * else undefined. The original error stays its cause, so `isNoSpaceError` still tells.
 */
export async function noSpaceFailure(
  error: unknown,
  cacheDir: string,
  subject: string,
  neededBytes?: number,
): Promise<ModelgateError | undefined> {
  const code = noSpaceCode(error);
  if (code === undefined) return undefined;
  const space = await statfs(cacheDir).then(
    (info) => ({ freeBytes: info.bavail * info.bsize, totalBytes: info.blocks * info.bsize }),
    () => undefined,
  );
  return new ModelgateError(
    ErrorCode.UNAVAILABLE,
    noSpaceReason(code, cacheDir, subject, neededBytes, space),
    {},
    { cause: error },
  );
}
