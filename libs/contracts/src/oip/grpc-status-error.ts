import { ErrorCode } from '../errors/error-code.js';
import { isModelgateError } from '../errors/modelgate-error.js';
import { toGrpcStatus } from '../errors/status-tables.js';

/** The status object grpc-js turns into a call's final status. */
export interface GrpcStatusError {
  code: number;
  message: string;
}

/**
 * Maps any error to a gRPC status, the one table of the gRPC transport (GRPC_STATUS_BY_CODE);
 * an unknown error becomes INTERNAL without its message or stack, and `onUnknown` hears it.
 */
export function toGrpcStatusError(error: unknown, onUnknown?: (error: unknown) => void): GrpcStatusError {
  if (isModelgateError(error)) return { code: toGrpcStatus(error.code), message: error.message };
  onUnknown?.(error);
  return { code: toGrpcStatus(ErrorCode.INTERNAL), message: 'internal error' };
}
