// OpenAI's completion answer and stream chunk as zod schemas: the OpenAPI document shows them,
// and the answer builders' types are inferred from them (one definition of each shape).
import { z } from 'zod';
import { completionLogprobsSchema } from './openai-logprobs.js';

/** How a generation ended, as OpenAI names it: EOS and stop strings are both `stop`. */
export const openAiFinishReasonSchema = z
  .enum(['stop', 'length'])
  .describe('stop: the end-of-sequence token or a stop string; length: the token limit');

/** Token counts of a completion. */
export const completionUsageSchema = z
  .object({
    prompt_tokens: z.int().describe('Tokens in the prompt'),
    completion_tokens: z.int().describe('Tokens generated'),
    total_tokens: z.int().describe('The sum of both'),
  })
  .describe('Token counts');

/** A stream chunk's `usage`: with include_usage null, and the counts on the last chunk. */
export const streamUsageField = completionUsageSchema
  .nullable()
  .optional()
  .describe('With include_usage: null, and the counts on the last chunk');

/** The fields every completion and chunk has. */
const identity = {
  id: z.string().describe('`cmpl-…`, the same on every chunk of a stream'),
  object: z.literal('text_completion').describe('Always `text_completion`'),
  created: z.int().describe('When it was created, Unix seconds'),
  model: z.string().describe('The `model` of the request'),
};

const choiceIndex = z.int().describe("The prompt's position in `prompt` (0 for a single prompt)");

/** The non-streamed answer: one choice per prompt (each with its finish_reason) and the usage. */
export const completionAnswerSchema = z.object({
  ...identity,
  choices: z
    .array(
      z.object({
        text: z.string().describe('The completion (after the prompt when `echo`)'),
        index: choiceIndex,
        finish_reason: openAiFinishReasonSchema,
        logprobs: completionLogprobsSchema,
      }),
    )
    .describe('One choice per prompt, in order'),
  usage: completionUsageSchema,
});

/** One chunk of a stream: a text delta, the last chunk of a choice, or the usage chunk. */
export const completionChunkSchema = z.object({
  ...identity,
  choices: z
    .array(
      z.object({
        text: z.string().describe('The text delta'),
        index: choiceIndex,
        finish_reason: openAiFinishReasonSchema.nullable().describe('null until the last chunk of choices'),
        logprobs: completionLogprobsSchema,
      }),
    )
    .describe('The choice this chunk continues; none on the usage chunk'),
  usage: streamUsageField,
});

/** Token counts of a completion. */
export type CompletionUsage = z.infer<typeof completionUsageSchema>;

/** How a generation ended, in OpenAI's terms. */
export type OpenAiFinishReason = z.infer<typeof openAiFinishReasonSchema>;

/** OpenAI's non-streamed completion answer. */
export type CompletionAnswer = z.infer<typeof completionAnswerSchema>;

/** One chunk of a stream (`usage` null, or the counts on the usage chunk). */
export type OpenAiCompletion = z.infer<typeof completionChunkSchema>;
