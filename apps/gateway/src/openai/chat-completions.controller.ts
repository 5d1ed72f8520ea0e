import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type GenerationSseFormat } from '../http/generation-answer.js';
import { type TextLogprob } from '../serving/generation/generation-events.js';
import {
  type ChatRequest,
  chatChunk,
  chatUsageChunk,
  parseOpenAiChatRequest,
  toChatCompletion,
} from './openai-chat.js';
import { type CompletionIdentity, completionUsage, toOpenAiFinishReason } from './openai-completions.js';
import { toOpenAiErrorBody } from './openai-errors.js';
import { type ChatLogprobs, chatLogprobs } from './openai-logprobs.js';
import { type OpenAiGenerationFace, OpenAiGenerationRunner } from './openai-generation.js';
import { choiceParams } from './openai-sampling.js';

/**
 * `POST /v1/chat/completions`: OpenAI's chat API over a text-generation endpoint (`model`) whose
 * model has a chat template: the messages rendered by it into the prompt, one JSON answer or,
 * with `stream: true`, Server-Sent Events of `chat.completion.chunk` deltas ended by
 * `data: [DONE]`. Errors are the gateway's error body with OpenAI's `type` and `param`.
 */
@Controller('v1')
export class ChatCompletionsController {
  constructor(@Inject(OpenAiGenerationRunner) private readonly runner: OpenAiGenerationRunner) {}

  @Post('chat/completions')
  @HttpCode(200)
  async chat(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.runner.run(CHAT, body, request, reply);
  }
}

const CHAT: OpenAiGenerationFace<ChatRequest> = {
  route: '/v1/chat/completions',
  idPrefix: 'chatcmpl',
  fields: { text: 'messages', 'parameters.max_new_tokens': 'max_completion_tokens' },
  parse: parseOpenAiChatRequest,
  generations: (request) => {
    const input = { kind: 'chat' as const, messages: request.messages, lengthGiven: request.lengthGiven };
    return Array.from({ length: request.choices }, (_, j) => ({
      input,
      params: choiceParams(request.params, j),
    }));
  },
  answer: (request, identity, ends) =>
    toChatCompletion(
      identity,
      ends.map((end) => ({
        text: end.text,
        finishReason: toOpenAiFinishReason(end.finishReason),
        ...(request.params.logprobs === undefined ? {} : { logprobs: chatLogprobs(end.logprobs?.all ?? []) }),
      })),
      completionUsage(ends),
    ),
  events: chatEvents,
};

/**
 * The stream's chunks: the role, the deltas, the last chunk with the finish reason, the usage,
 * [DONE]. With logprobs, a delta carries its tokens' and the last chunk those whose text never
 * showed (the end-of-sequence token, a stop string's), when there are any.
 */
function chatEvents(request: ChatRequest, identity: CompletionIdentity): GenerationSseFormat {
  const wanted = request.params.logprobs !== undefined;
  const logprobsOf = (entries: readonly TextLogprob[] = []) =>
    wanted && entries.length > 0 ? chatLogprobs(entries) : null;
  const chunk = (
    index: number,
    delta: Parameters<typeof chatChunk>[2],
    finish: 'stop' | 'length' | null,
    logprobs: ChatLogprobs = null,
  ) => chatChunk(identity, index, delta, finish, request.includeUsage, logprobs);
  return {
    start: () =>
      Array.from({ length: request.choices }, (_, index) =>
        chunk(index, { role: 'assistant', content: '' }, null),
      ),
    delta: (delta, index) =>
      delta.text === '' ? undefined : chunk(index, { content: delta.text }, null, logprobsOf(delta.logprobs)),
    end: (end, index) => [
      chunk(index, {}, toOpenAiFinishReason(end.finishReason), logprobsOf(end.logprobs?.unsent)),
    ],
    finish: (ends) => (request.includeUsage ? [chatUsageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}
