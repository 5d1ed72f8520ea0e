import { type ArgumentsHost, Catch, Inject, Injectable, type RpcExceptionFilter } from '@nestjs/common';
import { ErrorCode, isModelgateError, toGrpcStatus } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type Observable, throwError } from 'rxjs';
import { LOGGER } from '../worker.tokens.js';

/** The status object grpc-js turns into a call's final status. */
export interface GrpcStatusError {
  code: number;
  message: string;
}

/** Maps any error to a gRPC status; unknown errors become INTERNAL, logged, without a stack. */
export function toGrpcStatusError(error: unknown, logger?: Logger): GrpcStatusError {
  if (isModelgateError(error)) return { code: toGrpcStatus(error.code), message: error.message };
  logger?.error({ err: error }, 'unexpected error in a gRPC handler');
  return { code: toGrpcStatus(ErrorCode.INTERNAL), message: 'internal error' };
}

/** The one filter of the gRPC transport. */
@Catch()
@Injectable()
export class GrpcExceptionFilter implements RpcExceptionFilter<unknown> {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    const status = toGrpcStatusError(exception, this.logger);
    return throwError(() => status);
  }
}
