import { Body, Controller, HttpCode, Inject, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ErrorCode, ModelgateError, isModelgateError, toHttpStatus } from '@modelgate/contracts';
import { type FastifyRequest } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { ServeService } from '../serving/serve.service.js';
import {
  type OpenAiEmbeddingsResponse,
  parseOpenAiEmbeddingsRequest,
  toOpenAiEmbeddings,
} from './openai-embeddings.js';

/** `POST /v1/embeddings`: OpenAI's embeddings API over a feature-extraction endpoint (`model`). */
@ApiTags('openai')
@Controller('v1')
export class EmbeddingsController {
  constructor(
    @Inject(ServeService) private readonly serve: ServeService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
  ) {}

  @Post('embeddings')
  @HttpCode(200)
  @ApiOperation({
    summary: 'OpenAI-compatible embeddings: `model` names a feature-extraction endpoint',
  })
  async embeddings(@Body() body: unknown, @Req() request: FastifyRequest): Promise<OpenAiEmbeddingsResponse> {
    const started = performance.now();
    try {
      return await this.embed(body, request.id, started);
    } catch (error) {
      const status = isModelgateError(error) ? toHttpStatus(error.code) : 500;
      this.metrics.recordRequest('unknown', 'none', 'none', status, started);
      throw error;
    }
  }

  private async embed(body: unknown, requestId: string, started: number): Promise<OpenAiEmbeddingsResponse> {
    const parsed = parseOpenAiEmbeddingsRequest(body);
    const endpoint = this.tables.current?.endpoints.get(parsed.model);
    if (endpoint && endpoint.task !== 'feature-extraction') {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `model: endpoint '${parsed.model}' serves ${endpoint.task}; /v1/embeddings needs a feature-extraction endpoint`,
        { field: 'model' },
      );
    }
    const answer = await this.serve.serve({
      endpoint: parsed.model,
      body: { text: parsed.input },
      requestId,
    });
    const response = toOpenAiEmbeddings(
      parsed,
      Array.isArray(parsed.input) ? answer.body.predictions : answer.body.predictions.slice(0, 1),
      answer.promptTokens,
    );
    this.metrics.recordRequest(answer.body.endpoint, answer.modelId, answer.body.route, 200, started);
    return response;
  }
}
