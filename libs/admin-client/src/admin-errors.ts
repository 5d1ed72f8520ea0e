import { type ApiErrorBody, type ValidationIssue } from '@modelgate/contracts';

/** What the registry said about a failed call, and how it was made. */
export interface AdminApiErrorFacts {
  /** The request field the error is about, when the registry names one. */
  field?: string;
  /** The registry's request id (`x-request-id`), for its logs. */
  requestId?: string;
  /** Every validation problem, when the call failed validation. */
  issues?: readonly ValidationIssue[];
  /** The `x-modelgate-component` header of the answer (`gateway` when a gateway answered). */
  component?: string;
  /** Whether the call carried a token. */
  tokenSent: boolean;
  /** The parsed error body; undefined when the answer was not the registry's JSON envelope. */
  body?: ApiErrorBody;
}

/**
 * The registry answered with an error status: its code (`HTTP_<status>` when the body is not the
 * registry's envelope, e.g. a proxy's page), its message and the facts around it.
 */
export class AdminApiError extends Error {
  override readonly name = 'AdminApiError';
  readonly field: string | undefined;
  readonly requestId: string | undefined;

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly facts: AdminApiErrorFacts,
  ) {
    super(message);
    this.field = facts.field;
    this.requestId = facts.requestId;
  }
}

/** No HTTP answer came back: connection refused, DNS failure, timeout, or the caller aborted. */
export class AdminUnreachableError extends Error {
  override readonly name = 'AdminUnreachableError';

  constructor(
    readonly baseUrl: string,
    /** Why, briefly: a socket error code (`ECONNREFUSED`), `no answer in time`, ... */
    readonly reason: string,
    options?: ErrorOptions,
  ) {
    super(`cannot reach the registry at ${baseUrl}: ${reason}`, options);
  }
}

/** The useful part of a fetch failure: undici wraps the socket error (ECONNREFUSED, ...) in `cause`. */
export function describeFetchFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

/**
 * A 2xx answer that is not what the route answers: not JSON, empty, or JSON of another shape. The
 * URL most likely points at something other than the registry's admin API (a proxy, a gateway, a
 * web page).
 */
export class AdminAnswerError extends Error {
  override readonly name = 'AdminAnswerError';

  constructor(
    readonly baseUrl: string,
    /** `GET /v1/models` */
    readonly call: string,
    readonly status: number,
    /** What came instead, e.g. `a body that is not JSON (text/html)`. */
    readonly got: string,
  ) {
    super(`the registry at ${baseUrl} answered ${call} with HTTP ${status} and ${got}`);
  }
}
