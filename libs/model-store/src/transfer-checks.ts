/** What every artifact transfer checks: size and digest on the way, the digest's form, failure wording. */
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { ErrorCode, isModelgateError, ModelgateError } from '@modelgate/contracts';
import { redactUri } from './redact-uri.js';

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/** A pass-through stream that hashes and counts, failing with PAYLOAD_TOO_LARGE past `limit` bytes. */
export function digestMeter(
  limit: number,
  uri: string,
): { meter: Transform; result: () => { digest: string; bytes: number } } {
  const hash = createHash('sha256');
  let bytes = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      bytes += chunk.length;
      if (bytes > limit) {
        callback(
          new ModelgateError(
            ErrorCode.PAYLOAD_TOO_LARGE,
            `${redactUri(uri)} is over the limit of ${limit} bytes`,
          ),
        );
        return;
      }
      hash.update(chunk);
      callback(null, chunk);
    },
  });
  return { meter, result: () => ({ digest: hash.digest('hex'), bytes }) };
}

/** A fetch failure in words: ModelgateErrors as they are, the deadline as DEADLINE_EXCEEDED, anything else UNAVAILABLE. */
export function describeFailure(
  error: unknown,
  uri: string,
  signal: AbortSignal,
  timeoutMs: number,
): unknown {
  if (isModelgateError(error)) return error;
  if (signal.aborted) {
    return new ModelgateError(
      ErrorCode.DEADLINE_EXCEEDED,
      `fetching ${redactUri(uri)} took longer than ${timeoutMs} ms`,
      {},
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ModelgateError(
    ErrorCode.UNAVAILABLE,
    `fetching ${redactUri(uri)} failed: ${message}`,
    {},
    { cause: error },
  );
}

/** A 64-hex-digit digest, lowercased; INVALID_ARGUMENT (field sha256) otherwise. */
export function normalizeSha256(sha256: string): string {
  if (!SHA256_HEX.test(sha256)) {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `sha256 must be 64 hex digits, got "${sha256.slice(0, 80)}"`,
      {
        field: 'sha256',
      },
    );
  }
  return sha256.toLowerCase();
}
