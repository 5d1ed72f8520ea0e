// OpenAI's chat completion answer and stream chunk as zod schemas: the OpenAPI document shows them,
// and the answer builders' types are inferred from them (one definition of each shape).
import { z } from 'zod';
import {
  completionUsageSchema,
  openAiFinishReasonSchema,
  streamUsageField,
} from './completion-answer.schema.js';
import { chatLogprobsSchema } from './openai-logprobs.js';

/** The fields every chat completion and chunk has. */
function identity<T extends string>(object: T) {
  return {
    id: z.string().describe('`chatcmpl-…`, the same on every chunk of a stream'),
    object: z.literal(object).describe(`Always \`${object}\``),
    created: z.int().describe('When it was created, Unix seconds'),
    model: z.string().describe('The `model` of the request'),
  };
}

const choiceIndex = z.int().describe('The choice, 0 to n - 1');

/** The non-streamed answer: the assistant's message, its finish_reason and the usage. */
export const chatCompletionSchema = z.object({
  ...identity('chat.completion'),
  choices: z
    .array(
      z.object({
        index: choiceIndex,
        message: z
          .object({
            role: z.literal('assistant').describe('Always `assistant`'),
            content: z.string().describe("The reply's text"),
          })
          .describe("The model's turn"),
        finish_reason: openAiFinishReasonSchema,
        logprobs: chatLogprobsSchema,
      }),
    )
    .describe('One choice per `n`, in order'),
  usage: completionUsageSchema,
});

/** One chunk of a stream: the role, a text delta, the last (empty) delta with the finish_reason, or the usage. */
export const chatCompletionChunkSchema = z.object({
  ...identity('chat.completion.chunk'),
  choices: z
    .array(
      z.object({
        index: choiceIndex,
        delta: z
          .object({
            role: z.literal('assistant').optional().describe('On the first chunk only'),
            content: z.string().optional().describe('The text delta'),
          })
          .describe('What this chunk adds to the message; empty on the last chunk'),
        finish_reason: openAiFinishReasonSchema.nullable().describe('null until the last chunk'),
        logprobs: chatLogprobsSchema,
      }),
    )
    .describe('The choice this chunk continues; none on the usage chunk'),
  usage: streamUsageField,
});

/** OpenAI's non-streamed chat answer. */
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;

/** One chunk of a chat stream. */
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
