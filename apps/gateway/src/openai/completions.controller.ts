import { Body, Controller, HttpCode, Inject, Post, Req, Res } from '@nestjs/common';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { type GenerationSseFormat } from '../http/generation-answer.js';
import { type TextLogprob } from '../serving/generation/generation-events.js';
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
import { type CompletionLogprobs, completionLogprobs } from './openai-logprobs.js';
import { type OpenAiGenerationFace, OpenAiGenerationRunner } from './openai-generation.js';
import { choiceParams } from './openai-sampling.js';

/**
 * `POST /v1/completions`: OpenAI's (legacy) completions API over a text-generation endpoint
 * (`model`), one JSON answer or, with `stream: true`, Server-Sent Events of text deltas ended by
 * `data: [DONE]`. Errors are the gateway's error body with OpenAI's `type` and `param`.
 */
@Controller('v1')
export class CompletionsController {
  constructor(@Inject(OpenAiGenerationRunner) private readonly runner: OpenAiGenerationRunner) {}

  @Post('completions')
  @HttpCode(200)
  async completions(
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await this.runner.run(COMPLETIONS, body, request, reply);
  }
}

const COMPLETIONS: OpenAiGenerationFace<CompletionRequest> = {
  route: '/v1/completions',
  idPrefix: 'cmpl',
  fields: { text: 'prompt', 'parameters.max_new_tokens': 'max_tokens' },
  parse: parseOpenAiCompletionsRequest,
  // One generation per choice: prompt p's j-th is choice p × n + j.
  generations: (request) =>
    request.prompts.flatMap((prompt) =>
      Array.from({ length: request.choices }, (_, j) => ({
        input: { kind: 'text' as const, prompt },
        params: choiceParams(request.params, j),
      })),
    ),
  answer: (request, identity, ends) =>
    toOpenAiCompletion(
      identity,
      ends.map((end, index) => ({
        text: request.echo ? promptOf(request, index) + end.text : end.text,
        finishReason: toOpenAiFinishReason(end.finishReason),
        ...(request.params.logprobs === undefined
          ? {}
          : { logprobs: completionLogprobs(end.logprobs?.all ?? [], 0) }),
      })),
      completionUsage(ends),
    ),
  events: completionEvents,
};

/**
 * The stream's chunks: the prompts when echoed, the deltas, each choice's last chunk, the usage,
 * [DONE]. With logprobs, a delta carries its tokens' and the last chunk those whose text never
 * showed (the end-of-sequence token, a stop string's).
 */
function completionEvents(request: CompletionRequest, identity: CompletionIdentity): GenerationSseFormat {
  const wanted = request.params.logprobs !== undefined;
  // Each choice's text offset so far, over its tokens' texts.
  const offsets = new Map<number, number>();
  const logprobsOf = (index: number, entries: readonly TextLogprob[] = []) => {
    if (!wanted) return null;
    const at = offsets.get(index) ?? 0;
    offsets.set(
      index,
      entries.reduce((sum, entry) => sum + entry.token.length, at),
    );
    return completionLogprobs(entries, at);
  };
  const chunk = (
    index: number,
    text: string,
    finish: 'stop' | 'length' | null,
    logprobs: CompletionLogprobs = null,
  ) => completionChunk(identity, index, text, finish, request.includeUsage, logprobs);
  return {
    start: () =>
      request.echo
        ? Array.from({ length: request.prompts.length * request.choices }, (_, index) => index).flatMap(
            (index) =>
              promptOf(request, index) === '' ? [] : [chunk(index, promptOf(request, index), null)],
          )
        : [],
    delta: (delta, index) => chunk(index, delta.text, null, logprobsOf(index, delta.logprobs)),
    end: (end, index) => [
      chunk(index, '', toOpenAiFinishReason(end.finishReason), logprobsOf(index, end.logprobs?.unsent)),
    ],
    finish: (ends) => (request.includeUsage ? [usageChunk(identity, completionUsage(ends))] : []),
    error: (status, body) => toOpenAiErrorBody(body, status),
    done: 'data: [DONE]',
  };
}

/** The prompt of choice `index` (prompt p's choices are p × n … p × n + n - 1). */
function promptOf(request: CompletionRequest, index: number): string {
  return request.prompts[Math.floor(index / request.choices)] ?? '';
}
