import { type ArgumentsHost, Catch, Inject, Injectable, type RpcExceptionFilter } from '@nestjs/common';
import { toGrpcStatusError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type Observable, throwError } from 'rxjs';
import { LOGGER } from '../worker.tokens.js';

/** The one filter of the gRPC transport. */
@Catch()
@Injectable()
export class GrpcExceptionFilter implements RpcExceptionFilter<unknown> {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, _host: ArgumentsHost): Observable<never> {
    const status = toGrpcStatusError(exception, (error) =>
      this.logger.error({ err: error }, 'unexpected error in a gRPC handler'),
    );
    return throwError(() => status);
  }
}
