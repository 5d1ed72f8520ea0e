import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { isNoSpaceError, noSpaceFailure, noSpaceReason } from './cache-space.js';

/** An error as node:fs rejects with it. */
function errno(code: string, message = `${code}: some failure, write`): NodeJS.ErrnoException {
  return Object.assign(new Error(message), { code, errno: -28, syscall: 'write' });
}

describe('isNoSpaceError', () => {
  it('tells a full file system (ENOSPC) and a spent quota (EDQUOT)', () => {
    expect(isNoSpaceError(errno('ENOSPC'))).toBe(true);
    expect(isNoSpaceError(errno('EDQUOT'))).toBe(true);
  });

  it('finds the no-space failure behind the errors that wrap it', () => {
    const fetchFailure = new ModelgateError(ErrorCode.UNAVAILABLE, 'full', {}, { cause: errno('ENOSPC') });
    const labelled = new ModelgateError(ErrorCode.UNAVAILABLE, 'artifact: full', {}, { cause: fetchFailure });
    expect(isNoSpaceError(labelled)).toBe(true);
  });

  it('takes every other failure for what it is', () => {
    expect(isNoSpaceError(errno('EACCES'))).toBe(false);
    expect(isNoSpaceError(errno('EIO'))).toBe(false);
    expect(isNoSpaceError(new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'sha256 mismatch'))).toBe(false);
    expect(isNoSpaceError(new Error('no space left on device'))).toBe(false); // words are not a code
    expect(isNoSpaceError('ENOSPC')).toBe(false);
    expect(isNoSpaceError(undefined)).toBe(false);
  });

  it('stops following causes that loop', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });
    expect(isNoSpaceError(a)).toBe(false);
  });
});

describe('noSpaceReason', () => {
  it('says "no space left on device", names the cache and what was written, with the sizes', () => {
    expect(
      noSpaceReason('ENOSPC', '/var/cache/mg', 'file:///m/model.onnx', 17_216_345, {
        freeBytes: 12_582_912,
        totalBytes: 16_777_216,
      }),
    ).toBe(
      'no space left on device in the artifact cache /var/cache/mg while writing file:///m/model.onnx ' +
        '(17216345 bytes; 12582912 of 16777216 bytes free); the partial copy was removed',
    );
  });

  it('leaves out the sizes it does not know', () => {
    expect(noSpaceReason('ENOSPC', '/c', 'the files of bundle file:///t.tar', undefined, undefined)).toBe(
      'no space left on device in the artifact cache /c while writing the files of bundle file:///t.tar; ' +
        'the partial copy was removed',
    );
  });

  it('says a spent quota is one', () => {
    expect(noSpaceReason('EDQUOT', '/c', 'x', undefined, undefined)).toMatch(
      /^no space left on device \(disk quota exceeded\) in the artifact cache \/c/,
    );
  });
});

describe('noSpaceFailure', () => {
  it('is UNAVAILABLE with the reason and the free space of the cache, the write failure its cause', async () => {
    const cause = errno('ENOSPC');
    const failure = await noSpaceFailure(cause, tmpdir(), 'file:///m.onnx', 10);
    expect(failure).toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: expect.stringMatching(
        /^no space left on device in the artifact cache .+ while writing file:\/\/\/m\.onnx \(10 bytes; \d+ of \d+ bytes free\); the partial copy was removed$/,
      ) as unknown,
      cause,
    });
    expect(isNoSpaceError(failure)).toBe(true);
  });

  it('is undefined for any other failure', async () => {
    await expect(noSpaceFailure(errno('EACCES'), tmpdir(), 'x')).resolves.toBeUndefined();
  });
});
