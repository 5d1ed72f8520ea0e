import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { noteEndUser } from '../http/end-user.js';
import { renameErrorFields } from '../http/generation-answer.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ServeService } from '../serving/serve.service.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import {
  type OpenAiEmbeddingsResponse,
  parseOpenAiEmbeddingsRequest,
  toOpenAiEmbeddings,
} from './openai-embeddings.js';
import { type Reached } from './openai-traffic.js';

/** `POST /v1/embeddings`: OpenAI's embeddings API over a feature-extraction endpoint (`model`). */
@Controller('v1')
export class EmbeddingsController {
  constructor(
    @Inject(ServeService) private readonly serve: ServeService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
  ) {}

  @Post('embeddings')
  @HttpCode(200)
  async embeddings(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<OpenAiEmbeddingsResponse> {
    const started = performance.now();
    // What the failure metrics are labelled with: the endpoint once known, the model once routed.
    const reached: Reached = {};
    try {
      return await this.embed(body, request, reply, started, reached);
    } catch (error) {
      this.metrics.recordError(reached.endpoint ?? 'unknown', error, started, reached.routed);
      throw error;
    }
  }

  private async embed(
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    started: number,
    reached: Reached,
  ): Promise<OpenAiEmbeddingsResponse> {
    const parsed = parseOpenAiEmbeddingsRequest(body);
    noteEndUser(request, parsed.user);
    const endpoint = this.tables.current?.endpoints.get(parsed.model);
    if (endpoint) reached.endpoint = endpoint.name;
    if (endpoint && endpoint.task !== 'feature-extraction') {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `model: endpoint '${parsed.model}' serves ${endpoint.task}; /v1/embeddings needs a feature-extraction endpoint`,
        { field: 'model' },
      );
    }
    // A canary split keeps a caller on one route by the endpoint's sticky header, as on /serve.
    const stickyKey = stickyRouteKey(request.headers, endpoint);
    const answer = await this.serve
      .serve(
        {
          endpoint: parsed.model,
          body: { text: parsed.input },
          requestId: request.id,
          ...(stickyKey === undefined ? {} : { stickyKey }),
          // A client that goes away cancels the worker call, as on /serve.
          signal: clientGoneSignal(request.raw.socket),
        },
        (to) => {
          reached.routed = to;
        },
      )
      .catch((error: unknown) => {
        // /serve names the texts `text`; here they are `input`.
        throw renameErrorFields(error, { text: 'input' });
      });
    void reply.header('x-modelgate-model', answer.modelId);
    const response = toOpenAiEmbeddings(
      parsed,
      Array.isArray(parsed.input) ? answer.body.predictions : answer.body.predictions.slice(0, 1),
      answer.promptTokens,
      // Unit length unless the endpoint opts out, as OpenAI and TEI answer; /serve keeps the endpoint's own choice.
      endpoint?.postprocessing.normalize !== false,
    );
    this.metrics.recordRequest(answer.body.endpoint, answer.modelId, answer.body.route, 200, started);
    return response;
  }
}
