import { z } from 'zod';
import { ErrorCode } from '../errors/error-code.js';

/** One failed validation: the field's path (`routes[1].weight`) and what is wrong with it. */
export const validationIssueSchema = z.object({
  path: z.string().describe('The field, e.g. `routes[1].weight`'),
  message: z.string().describe('What is wrong with it'),
});

/** The JSON error body of every failed admin API call (DESIGN §3.1). */
export const apiErrorBodySchema = z.object({
  error: z.object({
    code: z.enum(ErrorCode).describe('What went wrong, one of a fixed list; the HTTP status follows from it'),
    message: z.string().describe('What went wrong, for people'),
    request_id: z.string().describe("The request's id (`x-request-id`), for finding its log lines"),
    field: z.string().optional().describe('The request field the error is about, when there is one'),
    issues: z
      .array(validationIssueSchema)
      .readonly()
      .optional()
      .describe('Every validation problem, when the error reports a failed validation'),
  }),
});

/** The JSON error body of every failed admin API call. */
export type ApiErrorBody = z.infer<typeof apiErrorBodySchema>;
