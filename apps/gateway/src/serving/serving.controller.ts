import { Body, Controller, Headers, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ErrorCode, ModelgateError, isModelgateError, toHttpStatus } from '@modelgate/contracts';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type AsyncInference } from '../async-jobs/async-inference.js';
import { ASYNC_INFERENCE } from '../gateway.tokens.js';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { type ServeAnswer, ServeService } from './serve.service.js';

/** The 202 body of an asynchronous request. */
export interface AcceptedJob {
  job: string;
  status_url: string;
}

/** Header a client sends to stay on one canary route (an endpoint may name another). */
const DEFAULT_STICKY_HEADER = 'x-modelgate-route-key';

/** The public inference API: POST /serve/:endpoint and /serve/:endpoint/:version. */
@Controller('serve')
export class ServingController {
  constructor(
    @Inject(ServeService) private readonly service: ServeService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(ASYNC_INFERENCE) private readonly asyncInference: AsyncInference | undefined,
  ) {}

  @Post(':endpoint')
  @HttpCode(200)
  serve(
    @Param('endpoint') endpoint: string,
    @Body() body: unknown,
    @Headers() headers: Record<string, string | string[] | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ServeAnswer['body'] | AcceptedJob> {
    return this.handle(endpoint, undefined, body, headers, request, reply);
  }

  @Post(':endpoint/:version')
  @HttpCode(200)
  servePinned(
    @Param('endpoint') endpoint: string,
    @Param('version') version: string,
    @Body() body: unknown,
    @Headers() headers: Record<string, string | string[] | undefined>,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ServeAnswer['body'] | AcceptedJob> {
    return this.handle(endpoint, version, body, headers, request, reply);
  }

  private async handle(
    endpoint: string,
    version: string | undefined,
    body: unknown,
    headers: Record<string, string | string[] | undefined>,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<ServeAnswer['body'] | AcceptedJob> {
    const started = performance.now();
    const stickyHeader = this.tables.current?.endpoints.get(endpoint)?.stickyHeader ?? DEFAULT_STICKY_HEADER;
    const sticky = headers[stickyHeader.toLowerCase()];
    if (headers.prefer?.includes('respond-async')) {
      if (!this.asyncInference) {
        throw new ModelgateError(
          ErrorCode.UNAVAILABLE,
          'asynchronous inference (Prefer: respond-async) needs Redis: start the gateway with REDIS_URL',
        );
      }
      const job = await this.asyncInference.submit({
        endpoint,
        ...(version !== undefined ? { version } : {}),
        body,
        requestId: request.id,
        ...(typeof sticky === 'string' ? { stickyKey: sticky } : {}),
      });
      const statusUrl = `/jobs/${encodeURIComponent(job)}`;
      void reply.status(202).header('location', statusUrl).header('preference-applied', 'respond-async');
      return { job, status_url: statusUrl };
    }
    const gone = new AbortController();
    // The response's 'close' before it finished writing means the client went away.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort();
    });
    let labels = {
      endpoint: this.tables.current?.endpoints.has(endpoint) ? endpoint : 'unknown',
      model: 'none',
      route: 'none',
    };
    try {
      const answer = await this.service.serve({
        endpoint,
        ...(version !== undefined ? { version } : {}),
        body,
        requestId: request.id,
        ...(typeof sticky === 'string' ? { stickyKey: sticky } : {}),
        signal: gone.signal,
      });
      labels = { endpoint: answer.body.endpoint, model: answer.modelId, route: answer.body.route };
      void reply.header('x-modelgate-model', answer.modelId).header('server-timing', answer.serverTiming);
      this.record(labels, 200, started);
      return answer.body;
    } catch (error) {
      this.record(labels, isModelgateError(error) ? toHttpStatus(error.code) : 500, started);
      throw error;
    }
  }

  private record(
    labels: { endpoint: string; model: string; route: string },
    code: number,
    started: number,
  ): void {
    this.metrics.requests.inc({ ...labels, code: String(code) });
    this.metrics.requestDuration.observe(
      { endpoint: labels.endpoint, route: labels.route },
      (performance.now() - started) / 1000,
    );
  }
}
