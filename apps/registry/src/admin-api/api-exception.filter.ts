import { type ArgumentsHost, Catch, type ExceptionFilter, Inject, Injectable } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { LOGGER } from '../registry.tokens.js';
import { toApiErrorResponse } from './api-error.js';

/** The one HTTP filter: every error leaves as `{"error": {code, message, request_id}}`, never a stack. */
@Catch()
@Injectable()
export class ApiExceptionFilter implements ExceptionFilter {
  constructor(@Inject(LOGGER) private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const response = toApiErrorResponse(exception, request.id);
    if (!response.expected) {
      this.logger.error(
        { err: exception, requestId: request.id, method: request.method, url: request.url },
        'request failed',
      );
    }
    void reply.status(response.status).headers(response.headers).send(response.body);
  }
}
