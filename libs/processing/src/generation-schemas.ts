// What `POST /serve` takes and answers for the generative tasks (text-generation, image-to-text):
// the text-generation body, the generated text, and the Server-Sent Events of a stream.
import { textGenerationParametersSchema } from '@modelgate/generation';
import { z } from 'zod';

/**
 * The /serve body of a text-generation endpoint: one prompt, TGI's parameters, and `stream`
 * (strict: unknown fields are refused).
 */
export const textGenerationRequestSchema = z.strictObject({
  text: z.string({ error: 'must be a string (one prompt)' }).describe('The prompt to continue'),
  parameters: textGenerationParametersSchema.optional().describe('Decoding parameters (TGI names)'),
  stream: z
    .boolean({ error: 'must be true or false' })
    .optional()
    .describe(
      'true: answer Server-Sent Events, one `data: {"text", "token_ids"}` per delta, then `event: end`; false (default): one JSON answer',
    ),
});

const finishReasonSchema = z
  .enum(['length', 'eos', 'stop'])
  .describe('length: max_new_tokens reached; eos: the end-of-sequence token; stop: a stop string');

/** The answer of a text-generation endpoint for one prompt, and the data of a stream's `end` event. */
export const generatedTextSchema = z.object({
  generated_text: z
    .string()
    .describe('The generated text (after the prompt when return_full_text), a stop string excluded'),
  finish_reason: finishReasonSchema,
  prompt_tokens: z.int().describe('Tokens in the prompt'),
  generated_tokens: z.int().describe('Tokens generated'),
});

/**
 * The `data` of one Server-Sent Event of a streamed generation: a delta (unnamed event), the
 * `end` event, or an `error` event (an error after the stream began, in the gateway's error body).
 */
export const generationEventSchema = z.union([
  z
    .object({
      text: z.string().describe('The text the new tokens completed (never a split character)'),
      token_ids: z.array(z.int()).describe('The token ids read since the previous delta'),
    })
    .meta({ title: 'delta', description: 'A text delta' }),
  generatedTextSchema
    .extend({
      timings: z
        .object({
          queue_ms: z.number().describe('Time waiting for a decode slot on the worker'),
          time_to_first_token_ms: z.number().describe('From the request to the first generated token'),
          total_ms: z.number().describe('From the request to the last token'),
        })
        .describe('Where the time went, in ms (also the Server-Timing trailer)'),
    })
    .meta({ title: 'end', description: '`event: end`: how the generation ended' }),
  z
    .object({
      error: z
        .object({
          code: z.string().describe('The error code, as in the error schema'),
          message: z.string().describe('What went wrong'),
          request_id: z.string().describe("The request's id"),
        })
        .describe('The error body'),
    })
    .meta({
      title: 'error',
      description: '`event: error`: an error after the stream began (status already 200)',
    }),
]);
