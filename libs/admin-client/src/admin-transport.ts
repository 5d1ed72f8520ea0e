import { type ApiErrorBody } from '@modelgate/contracts';
import { AdminApiError, AdminUnreachableError, describeFetchFailure } from './admin-errors.js';
import { isStreamedBody } from './upload-body.js';

/** The header a modelgate component sets on its answers (`registry`, `gateway`). */
const COMPONENT_HEADER = 'x-modelgate-component';

/** Where and how calls go. */
export interface TransportOptions {
  /** Registry base URL, e.g. `http://127.0.0.1:8081`. */
  baseUrl: string;
  /** Bearer token; calls carry none when undefined. */
  token: string | undefined;
  /** Aborts every call (the caller is stopping). */
  signal: AbortSignal | undefined;
}

/** One call: its body (JSON-encoded unless FormData, a StreamedBody or a string) and limits. */
export interface CallOptions {
  body?: unknown;
  /** Extra request headers; they win over the defaults (content-type of a string body, say). */
  headers?: Record<string, string>;
  /** Deadline in ms; null for none. */
  timeoutMs: number | null;
}

/** An answer of any status: its headers and body (parsed when JSON, else the text). */
export interface AdminAnswer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends one call; resolves with any answer, throws AdminUnreachableError when none came. */
export async function sendCall(
  transport: TransportOptions,
  method: string,
  path: string,
  options: CallOptions,
): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (transport.token !== undefined) headers.authorization = `Bearer ${transport.token}`;
  const { body } = options;
  let payload: FormData | ReadableStream<Uint8Array> | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (isStreamedBody(body)) {
    headers['content-type'] = body.contentType;
    payload = body.stream;
  } else if (body !== undefined) {
    headers['content-type'] = 'application/json';
    payload = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const signals = [
    ...(options.timeoutMs === null ? [] : [AbortSignal.timeout(options.timeoutMs)]),
    ...(transport.signal === undefined ? [] : [transport.signal]),
  ];
  try {
    return await fetch(`${transport.baseUrl}${path}`, {
      method,
      headers: { ...headers, ...options.headers },
      ...(payload === undefined ? {} : { body: payload }),
      // A stream body must say it is sent while the answer may already arrive (undici).
      ...(payload instanceof ReadableStream ? { duplex: 'half' } : {}),
      ...(signals.length === 0
        ? {}
        : { signal: signals.length === 1 ? signals[0] : AbortSignal.any(signals) }),
    });
  } catch (error) {
    throw new AdminUnreachableError(transport.baseUrl, describeFetchFailure(error), { cause: error });
  }
}

/** The answer as an AdminAnswer: the body parsed when it is JSON, else its text ('' when empty). */
export async function readAnswer<T>(response: Response): Promise<AdminAnswer<T>> {
  const text = await response.text();
  let body: unknown = text;
  if (text !== '' && (response.headers.get('content-type') ?? '').includes('json')) {
    body = JSON.parse(text) as unknown;
  }
  return { status: response.status, headers: response.headers, body: body as T };
}

/** Whether a modelgate gateway, not the registry, sent `response`. */
export function answeredByGateway(response: Response): boolean {
  return response.headers.get(COMPONENT_HEADER) === 'gateway';
}

/** The error a non-2xx answer (or a gateway's answer) stands for, from the registry's `{"error": {...}}` envelope when it is one. */
export async function toAdminApiError(response: Response, tokenSent: boolean): Promise<AdminApiError> {
  const text = await response.text().catch(() => '');
  let envelope: Partial<ApiErrorBody> = {};
  try {
    envelope = JSON.parse(text) as Partial<ApiErrorBody>;
  } catch {
    // not the registry's JSON envelope (a proxy's page, say): fall back to the status line
  }
  // A gateway's 2xx (its own route of the same path) is no error body.
  const error = response.ok ? undefined : envelope.error;
  const component = response.headers.get(COMPONENT_HEADER) ?? undefined;
  return new AdminApiError(
    response.status,
    error?.code ?? (response.ok ? 'NOT_THE_REGISTRY' : `HTTP_${response.status}`),
    error?.message ??
      (response.ok
        ? `a modelgate gateway answered (HTTP ${response.status}), not the registry's admin API`
        : `HTTP ${response.status} ${response.statusText}`.trim()),
    {
      tokenSent,
      ...(error?.field === undefined ? {} : { field: error.field }),
      ...(error?.request_id === undefined ? {} : { requestId: error.request_id }),
      ...(error?.issues === undefined ? {} : { issues: error.issues }),
      ...(component === undefined ? {} : { component }),
      ...(error === undefined ? {} : { body: envelope as ApiErrorBody }),
    },
  );
}
