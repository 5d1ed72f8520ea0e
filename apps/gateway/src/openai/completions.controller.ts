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
import {
  type GenerationStream,
  GenerationService,
  collectText,
} from '../serving/generation/generation.service.js';
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
  closeEvents,
  recordOpenAiFailure,
  recordOpenAiSuccess,
  requireGenerator,
} from './openai-traffic.js';

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
    const streams = await this.startAll(parsed, request, identity.id, signal, reached).catch(
      (error: unknown) => {
        abort.abort();
        throw renameErrorFields(error, OPENAI_FIELDS);
      },
    );
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
        text: parsed.echo ? parsed.prompts[index]! + end.text : end.text,
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

  /**
   * Starts one generation per prompt. The prompts of one request take the same route: the
   * client's route key when it sends one, else the completion's id. Rejects with the first
   * failure (the caller aborts the others).
   */
  private async startAll(
    parsed: CompletionRequest,
    request: FastifyRequest,
    completionId: string,
    signal: AbortSignal,
    reached: Reached,
  ): Promise<GenerationStream[]> {
    const endpoint = this.tables.current?.endpoints.get(parsed.model);
    const stickyKey = stickyRouteKey(request.headers, endpoint) ?? completionId;
    const started = await Promise.allSettled(
      parsed.prompts.map((prompt) =>
        this.generation.start({ endpoint: parsed.model }, { kind: 'text', prompt }, parsed.params, {
          signal,
          headers: request.headers,
          requestId: request.id,
          stickyKey,
          onRouted: (to) => {
            reached.routed = to;
          },
        }),
      ),
    );
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      // The others started: end them now (nobody will read them), which frees their workers.
      for (const result of started) {
        if (result.status === 'fulfilled') void closeEvents(result.value);
      }
      throw failed.reason;
    }
    return started.map((result) => (result as PromiseFulfilledResult<GenerationStream>).value);
  }
}

/** The stream's chunks: the prompts when echoed, the deltas, each choice's last chunk, the usage, [DONE]. */
function completionEvents(request: CompletionRequest, identity: CompletionIdentity): GenerationSseFormat {
  const chunk = (index: number, text: string, finish: 'stop' | 'length' | null) =>
    completionChunk(identity, index, text, finish, request.includeUsage);
  return {
    start: () =>
      request.echo
        ? request.prompts.flatMap((prompt, index) => (prompt === '' ? [] : [chunk(index, prompt, null)]))
        : [],
    delta: (delta, index) => chunk(index, delta.text, null),
    end: (end, index) => [chunk(index, '', toOpenAiFinishReason(end.finishReason))],
    finish: (ends) => (request.includeUsage ? [usageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}
