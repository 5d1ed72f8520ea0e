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
} from './openai-traffic.js';

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
    const stream = await this.generation
      .start(
        { endpoint: parsed.model },
        { kind: 'chat', messages: parsed.messages, lengthGiven: parsed.lengthGiven },
        parsed.params,
        {
          signal: clientGoneSignal(request.raw.socket),
          headers: request.headers,
          requestId: request.id,
          stickyKey: stickyRouteKey(request.headers, endpoint) ?? identity.id,
          onRouted: (to) => {
            reached.routed = to;
          },
        },
      )
      .catch((error: unknown) => {
        throw renameErrorFields(error, CHAT_FIELDS);
      });
    const modelId = `${stream.model}:${stream.version}`;
    if (!parsed.stream) {
      const end = await collectText(stream.events);
      recordOpenAiSuccess(this.metrics, started, reached, stream.route);
      await reply
        .header('x-modelgate-model', modelId)
        .header('server-timing', generationServerTiming(end.timings))
        .send(
          toChatCompletion(
            identity,
            end.text,
            toOpenAiFinishReason(end.finishReason),
            completionUsage([end]),
          ),
        );
      return;
    }
    const sent = await sendGenerationSse(
      reply,
      [stream],
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
  const chunk = (delta: Parameters<typeof chatChunk>[1], finish: 'stop' | 'length' | null) =>
    chatChunk(identity, delta, finish, request.includeUsage);
  return {
    start: () => [chunk({ role: 'assistant', content: '' }, null)],
    delta: (delta) => (delta.text === '' ? undefined : chunk({ content: delta.text }, null)),
    end: (end) => [chunk({}, toOpenAiFinishReason(end.finishReason))],
    finish: (ends) => (request.includeUsage ? [chatUsageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}
