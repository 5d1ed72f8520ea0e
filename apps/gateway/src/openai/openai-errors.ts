/**
 * The error body of the OpenAI-compatible routes (`/v1/*`): the gateway's own body with the two
 * fields OpenAI's clients read added, `type` (OpenAI's error class for the status) and `param`
 * (the request field at fault, or null), so `openai`'s APIError has them. Pure.
 */
import { apiErrorBodySchema } from '@modelgate/contracts';
import { z } from 'zod';
// A type only: the filter imports this module to answer /v1 errors.
import { type ErrorBody } from '../http/http-exception.filter.js';

/** OpenAI's error classes, by the HTTP status they come with. */
export type OpenAiErrorType =
  'invalid_request_error' | 'authentication_error' | 'permission_error' | 'rate_limit_error' | 'server_error';

/** The `/v1` error body: the gateway's, plus OpenAI's `type` and `param`. */
export const openAiErrorBodySchema = z.object({
  error: apiErrorBodySchema.shape.error
    .omit({ issues: true })
    .extend({
      type: z
        .enum([
          'invalid_request_error',
          'authentication_error',
          'permission_error',
          'rate_limit_error',
          'server_error',
        ])
        .describe(
          "OpenAI's error class: invalid_request_error for 4xx but 401, 403 and 429; server_error for 5xx",
        ),
      param: z.string().nullable().describe('The request field at fault (OpenAI clients read it), or null'),
    })
    .describe('What went wrong'),
});

/** The `/v1` error body. */
export type OpenAiErrorBody = z.infer<typeof openAiErrorBodySchema>;

/** OpenAI's error class for an HTTP status. */
export function openAiErrorType(status: number): OpenAiErrorType {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 429) return 'rate_limit_error';
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

/** `body` (the gateway's error body) with OpenAI's `type` and `param` added. */
export function toOpenAiErrorBody(body: ErrorBody, status: number): OpenAiErrorBody {
  return { error: { ...body.error, type: openAiErrorType(status), param: body.error.field ?? null } };
}

/** True for `/v1/` paths (the OpenAI-compatible surface). */
export function isOpenAiPath(url: string): boolean {
  return url.startsWith('/v1/');
}
