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
  type ChatRequest,
  chatChunk,
  chatUsageChunk,
  parseOpenAiChatRequest,
  toChatCompletion,
} from './openai-chat.js';
import { type CompletionIdentity, completionUsage, toOpenAiFinishReason } from './openai-completions.js';
import { toOpenAiErrorBody } from './openai-errors.js';
import {
  type Reached,
  cancelled,
  noteEndpoint,
  recordOpenAiFailure,
  recordOpenAiSuccess,
  requireGenerator,
  startGenerations,
} from './openai-traffic.js';
import { choiceParams } from './openai-sampling.js';

/** The generation service's field names, as this API names them. */
const CHAT_FIELDS = { text: 'messages', 'parameters.max_new_tokens': 'max_completion_tokens' };

/**
 * `POST /v1/chat/completions`: OpenAI's chat API over a text-generation endpoint (`model`) whose
 * model has a chat template: the messages rendered by it into the prompt, one JSON answer or,
 * with `stream: true`, Server-Sent Events of `chat.completion.chunk` deltas ended by
 * `data: [DONE]`. Errors are the gateway's error body with OpenAI's `type` and `param`.
 */
@Controller('v1')
export class ChatCompletionsController {
  constructor(
    @Inject(GenerationService) private readonly generation: GenerationService,
    @Inject(EndpointTables) private readonly tables: EndpointTables,
    @Inject(GatewayMetrics) private readonly metrics: GatewayMetrics,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post('chat/completions')
  @HttpCode(200)
  async chat(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const started = performance.now();
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
    const parsed = parseOpenAiChatRequest(body);
    noteEndUser(request, parsed.user);
    requireGenerator(endpoint, '/v1/chat/completions');
    const identity: CompletionIdentity = {
      id: `chatcmpl-${randomBytes(12).toString('base64url')}`,
      created: Math.floor(Date.now() / 1000),
      model: parsed.model,
    };
    // Aborted when the client goes away, or to end the other choices' generations when one fails.
    const abort = new AbortController();
    const signal = AbortSignal.any([clientGoneSignal(request.raw.socket), abort.signal]);
    const input = { kind: 'chat' as const, messages: parsed.messages, lengthGiven: parsed.lengthGiven };
    const generations = Array.from({ length: parsed.choices }, (_, j) => ({
      input,
      params: choiceParams(parsed.params, j),
    }));
    const streams = await startGenerations(this.generation, parsed.model, generations, {
      request,
      stickyKey: stickyRouteKey(request.headers, endpoint) ?? identity.id,
      signal,
      reached,
    }).catch((error: unknown) => {
      abort.abort();
      throw renameErrorFields(error, CHAT_FIELDS);
    });
    const stream = streams[0]!;
    const modelId = `${stream.model}:${stream.version}`;
    if (!parsed.stream) {
      const ends = await Promise.all(streams.map((one) => collectText(one.events))).catch(
        (error: unknown) => {
          abort.abort();
          throw error;
        },
      );
      const replies = ends.map((end) => ({
        text: end.text,
        finishReason: toOpenAiFinishReason(end.finishReason),
      }));
      recordOpenAiSuccess(this.metrics, started, reached, stream.route);
      await reply
        .header('x-modelgate-model', modelId)
        .header('server-timing', generationServerTiming(ends[0]!.timings))
        .send(toChatCompletion(identity, replies, completionUsage(ends)));
      return;
    }
    const sent = await sendGenerationSse(
      reply,
      streams,
      chatEvents(parsed, identity),
      { 'x-modelgate-model': modelId },
      this.logger,
    );
    if (sent.outcome === 'ended') recordOpenAiSuccess(this.metrics, started, reached, stream.route);
    else {
      recordOpenAiFailure(
        this.metrics,
        sent.outcome === 'failed' ? sent.error : cancelled(),
        started,
        reached,
      );
    }
  }
}

/** The stream's chunks: the role, the deltas, the last chunk with the finish reason, the usage, [DONE]. */
function chatEvents(request: ChatRequest, identity: CompletionIdentity): GenerationSseFormat {
  const chunk = (index: number, delta: Parameters<typeof chatChunk>[2], finish: 'stop' | 'length' | null) =>
    chatChunk(identity, index, delta, finish, request.includeUsage);
  return {
    start: () =>
      Array.from({ length: request.choices }, (_, index) =>
        chunk(index, { role: 'assistant', content: '' }, null),
      ),
    delta: (delta, index) => (delta.text === '' ? undefined : chunk(index, { content: delta.text }, null)),
    end: (end, index) => [chunk(index, {}, toOpenAiFinishReason(end.finishReason))],
    finish: (ends) => (request.includeUsage ? [chatUsageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}
