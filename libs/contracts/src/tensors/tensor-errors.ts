import { ErrorCode } from '../errors/error-code.js';
import { ModelgateError } from '../errors/modelgate-error.js';

/** The INVALID_ARGUMENT error the codecs throw, prefixed with the tensor's name when known. */
export function invalidTensorError(message: string, tensorName?: string): ModelgateError {
  const text = tensorName === undefined ? message : `tensor '${tensorName}': ${message}`;
  return new ModelgateError(
    ErrorCode.INVALID_ARGUMENT,
    text,
    tensorName === undefined ? {} : { field: tensorName },
  );
}

/** A shape as it reads in messages, e.g. `[2,128]`. */
export function formatShape(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}
