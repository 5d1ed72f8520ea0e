// OpenAI's `logprobs` on the generation routes: the request fields (chat's `logprobs` +
// `top_logprobs`, completions' integer `logprobs`), and the answers' shapes built from the
// generation's token log-probabilities (serving/generation/generation-events.ts). Each is the
// log-softmax of the model's logits at that step, before penalties and temperature (vLLM's default,
// "raw" logprobs); a token's text is the tokenizer's decode of it alone, its `bytes` that text's
// UTF-8. An impossible token (-Infinity) is reported as -9999, as vLLM does, since JSON has no
// infinity. Pure: no I/O.
import { MAX_TOP_LOGPROBS } from '@modelgate/generation';
import { z } from 'zod';
import { type TextLogprob } from '../serving/generation/generation-events.js';

/** What JSON carries for a log-probability of -Infinity (vLLM's figure). */
export const LOGPROB_FLOOR = -9999;

/** The request fields of chat completions. */
export const chatLogprobsFields = {
  logprobs: z
    .boolean()
    .nullable()
    .optional()
    .describe("Return each generated token's log-probability (`choices[].logprobs.content`)"),
  top_logprobs: z
    .int()
    .min(0)
    .max(MAX_TOP_LOGPROBS)
    .nullable()
    .optional()
    .describe(`With logprobs: also this many (0 to ${MAX_TOP_LOGPROBS}) most likely tokens at each position`),
};

/** The request field of completions. */
export const completionLogprobsField = z
  .int()
  .min(0)
  .max(MAX_TOP_LOGPROBS)
  .nullable()
  .optional()
  .describe(
    `Return each generated token's log-probability and this many (0 to ${MAX_TOP_LOGPROBS}, vLLM's limit) most likely tokens at each position`,
  );

const logprobSchema = z.number().describe('Natural log of the probability (-9999: impossible)');
const bytesSchema = z.array(z.int()).describe("The token text's UTF-8 bytes");

const chatTokenSchema = z.object({
  token: z.string().describe("The token's text"),
  logprob: logprobSchema,
  bytes: bytesSchema,
});

/** A chat choice's (or chunk's) logprobs: one entry per generated token of it. */
export const chatLogprobsSchema = z
  .object({
    content: z
      .array(
        chatTokenSchema.extend({
          top_logprobs: z.array(chatTokenSchema).describe('The most likely tokens there, most likely first'),
        }),
      )
      .describe("One per token, in order (an end-of-sequence token's text is its special token)"),
    refusal: z.null().describe('Always null'),
  })
  .nullable()
  .describe('With `logprobs: true`; else null');

/** A completion choice's (or chunk's) logprobs, OpenAI's legacy shape. */
export const completionLogprobsSchema = z
  .object({
    tokens: z.array(z.string()).describe('The tokens, as text'),
    token_logprobs: z.array(logprobSchema).describe('Each token’s log-probability'),
    top_logprobs: z
      .array(z.record(z.string(), logprobSchema))
      .describe('The most likely tokens at each position, text → log-probability'),
    text_offset: z
      .array(z.int())
      .describe("Where each token's text starts in the choice's text, counted over the tokens' own texts"),
  })
  .nullable()
  .describe('With `logprobs`; else null');

export type ChatLogprobs = z.infer<typeof chatLogprobsSchema>;
export type CompletionLogprobs = z.infer<typeof completionLogprobsSchema>;

const finite = (logprob: number): number => Math.max(logprob, LOGPROB_FLOOR);
const bytesOf = (text: string): number[] => [...Buffer.from(text, 'utf8')];

/** The chat shape of `entries`. */
export function chatLogprobs(entries: readonly TextLogprob[]): NonNullable<ChatLogprobs> {
  return {
    content: entries.map((entry) => ({
      token: entry.token,
      logprob: finite(entry.logprob),
      bytes: bytesOf(entry.token),
      top_logprobs: entry.top.map((top) => ({
        token: top.token,
        logprob: finite(top.logprob),
        bytes: bytesOf(top.token),
      })),
    })),
    refusal: null,
  };
}

/**
 * The completions shape of `entries`, their text offsets counted from `offset` (the length of
 * the choice's text before them). Two alternatives with the same text keep the likelier's figure.
 */
export function completionLogprobs(
  entries: readonly TextLogprob[],
  offset: number,
): NonNullable<CompletionLogprobs> {
  const textOffset: number[] = [];
  let at = offset;
  for (const entry of entries) {
    textOffset.push(at);
    at += entry.token.length;
  }
  return {
    tokens: entries.map((entry) => entry.token),
    token_logprobs: entries.map((entry) => finite(entry.logprob)),
    top_logprobs: entries.map((entry) => {
      const top = new Map<string, number>();
      for (const { token, logprob } of entry.top) if (!top.has(token)) top.set(token, finite(logprob));
      return Object.fromEntries(top);
    }),
    text_offset: textOffset,
  };
}
