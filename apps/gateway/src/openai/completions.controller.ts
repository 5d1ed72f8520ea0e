import { randomBytes } from 'node:crypto';
import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { LOGGER } from '../gateway.tokens.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { noteEndUser } from '../http/end-user.js';
import { type GenerationSseFormat, renameErrorFields, sendGenerationSse } from '../http/generation-answer.js';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { GenerationService, collectText } from '../serving/generation/generation.service.js';
import { generationServerTiming } from '../serving/generation/serve-generation.js';
import { stickyRouteKey } from '../serving/sticky-key.js';
import {
  type CompletionIdentity,
  type CompletionRequest,
  completionChunk,
  completionUsage,
  parseOpenAiCompletionsRequest,
  toOpenAiCompletion,
  toOpenAiFinishReason,
  usageChunk,
} from './openai-completions.js';
import { toOpenAiErrorBody } from './openai-errors.js';
import {
  type Reached,
  noteEndpoint,
  cancelled,
  recordOpenAiFailure,
  recordOpenAiSuccess,
  requireGenerator,
  startGenerations,
} from './openai-traffic.js';
import { choiceParams } from './openai-sampling.js';

/** The /serve field names the generation service's errors use, as this API names them. */
const OPENAI_FIELDS = { text: 'prompt', 'parameters.max_new_tokens': 'max_tokens' };

/**
 * `POST /v1/completions`: OpenAI's (legacy) completions API over a text-generation endpoint
 * (`model`), one JSON answer or, with `stream: true`, Server-Sent Events of text deltas ended by
 * `data: [DONE]`. Errors are the gateway's error body with OpenAI's `type` and `param`.
 */
@Controller('v1')
export class CompletionsController {
  constructor(
    @Inject(GenerationService) private readonly generation: GenerationService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post('completions')
  @HttpCode(200)
  async completions(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const started = performance.now();
    // What the failure metrics are labelled with: the endpoint once known, the model once routed.
    const reached: Reached = {};
    try {
      await this.complete(body, request, reply, started, reached);
    } catch (error) {
      recordOpenAiFailure(this.metrics, error, started, reached);
      throw error;
    }
  }

  private async complete(
    body: unknown,
    request: FastifyRequest,
    reply: FastifyReply,
    started: number,
    reached: Reached,
  ): Promise<void> {
    const endpoint = noteEndpoint(this.tables, body, reached);
    const parsed = parseOpenAiCompletionsRequest(body);
    noteEndUser(request, parsed.user);
    requireGenerator(endpoint, '/v1/completions');
    const identity: CompletionIdentity = {
      id: `cmpl-${randomBytes(12).toString('base64url')}`,
      created: Math.floor(Date.now() / 1000),
      model: parsed.model,
    };
    // Aborted when the client goes away, or to end the other prompts' generations when one fails.
    const abort = new AbortController();
    const signal = AbortSignal.any([clientGoneSignal(request.raw.socket), abort.signal]);
    // One generation per choice: prompt p's j-th is choice p × n + j.
    const generations = parsed.prompts.flatMap((prompt) =>
      Array.from({ length: parsed.choices }, (_, j) => ({
        input: { kind: 'text' as const, prompt },
        params: choiceParams(parsed.params, j),
      })),
    );
    const stickyKey = stickyRouteKey(request.headers, endpoint) ?? identity.id;
    const streams = await startGenerations(this.generation, parsed.model, generations, {
      request,
      stickyKey,
      signal,
      reached,
    }).catch((error: unknown) => {
      abort.abort();
      throw renameErrorFields(error, OPENAI_FIELDS);
    });
    const first = streams[0]!;
    const modelId = `${first.model}:${first.version}`;
    if (!parsed.stream) {
      const ends = await Promise.all(streams.map((stream) => collectText(stream.events))).catch(
        (error: unknown) => {
          abort.abort();
          throw error;
        },
      );
      const texts = ends.map((end, index) => ({
        text: parsed.echo ? promptOf(parsed, index) + end.text : end.text,
        finishReason: toOpenAiFinishReason(end.finishReason),
      }));
      recordOpenAiSuccess(this.metrics, started, reached, first.route);
      await reply
        .header('x-modelgate-model', modelId)
        .header('server-timing', generationServerTiming(ends[0]!.timings))
        .send(toOpenAiCompletion(identity, texts, completionUsage(ends)));
      return;
    }
    const sent = await sendGenerationSse(
      reply,
      streams,
      completionEvents(parsed, identity),
      { 'x-modelgate-model': modelId },
      this.logger,
    );
    if (sent.outcome === 'ended') recordOpenAiSuccess(this.metrics, started, reached, first.route);
    else
      recordOpenAiFailure(
        this.metrics,
        sent.outcome === 'failed' ? sent.error : cancelled(),
        started,
        reached,
      );
  }
}

/** The stream's chunks: the prompts when echoed, the deltas, each choice's last chunk, the usage, [DONE]. */
function completionEvents(request: CompletionRequest, identity: CompletionIdentity): GenerationSseFormat {
  const chunk = (index: number, text: string, finish: 'stop' | 'length' | null) =>
    completionChunk(identity, index, text, finish, request.includeUsage);
  return {
    start: () =>
      request.echo
        ? Array.from({ length: request.prompts.length * request.choices }, (_, index) => index).flatMap(
            (index) =>
              promptOf(request, index) === '' ? [] : [chunk(index, promptOf(request, index), null)],
          )
        : [],
    delta: (delta, index) => chunk(index, delta.text, null),
    end: (end, index) => [chunk(index, '', toOpenAiFinishReason(end.finishReason))],
    finish: (ends) => (request.includeUsage ? [usageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}

/** The prompt of choice `index` (prompt p's choices are p × n … p × n + n - 1). */
function promptOf(request: CompletionRequest, index: number): string {
  return request.prompts[Math.floor(index / request.choices)] ?? '';
}
