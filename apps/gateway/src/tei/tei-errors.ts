/**
 * The error body of the TEI-compatible routes (`/embed`, `/rerank`, …): Text Embeddings
 * Inference's `{error, error_type}` with the status TEI answers for that type (validation and
 * tokenizer errors 422, an empty batch 400, a full queue 429, not ready 503, a failed inference
 * 424). Codes TEI has no type for keep the gateway's status (404 unknown endpoint, 504 deadline).
 * Pure.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
// A type only: the filter imports this module to answer TEI errors.
import { type ErrorBody } from '../http/http-exception.filter.js';
import { TEI_ROUTES } from './tei-endpoint.js';

/** TEI's error classes (its ErrorType, serialized by variant name). */
export type TeiErrorType = 'Unhealthy' | 'Backend' | 'Overloaded' | 'Validation' | 'Tokenizer' | 'Empty';

/** The TEI error body. */
export interface TeiErrorBody {
  error: string;
  error_type: TeiErrorType;
}

/** An empty batch (`inputs: []`, `texts: []`): TEI's `Empty` type, 400. */
export class TeiEmptyBatch extends ModelgateError {
  constructor(field: string) {
    super(ErrorCode.INVALID_ARGUMENT, `\`${field}\` cannot be empty`, { field });
  }
}

/** TEI's type and status for each gateway code; `status` undefined keeps the gateway's. */
const TEI_ERRORS: Record<ErrorCode, { type: TeiErrorType; status?: number }> = {
  INVALID_ARGUMENT: { type: 'Validation', status: 422 },
  PAYLOAD_TOO_LARGE: { type: 'Validation', status: 422 },
  UNSUPPORTED_MEDIA_TYPE: { type: 'Validation', status: 422 },
  TOKEN_LIMIT_EXCEEDED: { type: 'Validation', status: 422 },
  CONFLICT: { type: 'Validation', status: 422 },
  NOT_FOUND: { type: 'Validation' },
  UNAUTHENTICATED: { type: 'Validation' },
  PERMISSION_DENIED: { type: 'Validation' },
  QUEUE_FULL: { type: 'Overloaded', status: 429 },
  MODEL_NOT_READY: { type: 'Unhealthy', status: 503 },
  UNAVAILABLE: { type: 'Unhealthy', status: 503 },
  INTERNAL: { type: 'Backend', status: 424 },
  DEADLINE_EXCEEDED: { type: 'Backend' },
  CANCELLED: { type: 'Backend' },
};

/** The TEI status and body for a failed request the gateway answered `status` + `body` for. */
export function toTeiError(
  error: unknown,
  body: ErrorBody,
  status: number,
): { status: number; body: TeiErrorBody } {
  if (error instanceof TeiEmptyBatch) {
    return { status: 400, body: { error: body.error.message, error_type: 'Empty' } };
  }
  const known: (typeof TEI_ERRORS)[ErrorCode] | undefined = TEI_ERRORS[body.error.code];
  const type = known?.type ?? (status >= 500 ? 'Backend' : 'Validation');
  return { status: known?.status ?? status, body: { error: body.error.message, error_type: type } };
}

const TEI_PATHS = new Set<string>(TEI_ROUTES.map((route) => `/${route}`));

/** True for the TEI-compatible routes' paths. */
export function isTeiPath(url: string): boolean {
  const query = url.indexOf('?');
  return TEI_PATHS.has(query === -1 ? url : url.slice(0, query));
}
