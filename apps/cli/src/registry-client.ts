import { type RolloutView, type StartRolloutRequest, type VersionPolicy } from '@modelgate/contracts';
import {
  type EndpointCreation,
  type EndpointView,
  type FleetStatusView,
  type ApiErrorBody,
  type ModelRegistration,
  type ModelView,
  type RouteRequest,
  type TokenRole,
  type TokenView,
  type VersionPolicyView,
} from './api-types.js';
import { type StreamedBody, countingBody } from './output/upload-progress.js';

/** The header a modelgate gateway sets on its error answers. */
const COMPONENT_HEADER = 'x-modelgate-component';

/** Added to an error that came from a gateway: the CLI talks to the registry. */
const GATEWAY_HINT =
  ' (this URL answers like a modelgate gateway; the admin API is served by the registry, port 8081 by ' +
  'default: set --registry or MODELGATE_REGISTRY to its URL)';

/** Deadline of one ordinary API call, in milliseconds; uploads have none (model files are large). */
const REQUEST_TIMEOUT_MS = 30_000;

/** `name` and `version` of a model, as the registry's paths take them. */
export interface ModelKey {
  name: string;
  version: string;
}

/** The registry answered with an error: its code, message and (when it has one) the field it is about. */
export class RegistryApiError extends Error {
  override readonly name = 'RegistryApiError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly requestId?: string,
  ) {
    super(message);
  }
}

/** No HTTP answer came back: connection refused, DNS failure, timeout. */
export class RegistryUnreachableError extends Error {
  override readonly name = 'RegistryUnreachableError';
}

/** Typed fetch wrapper over the registry's admin API (`/v1/...`), Bearer-authenticated. */
export class RegistryClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | undefined,
  ) {}

  listModels(name?: string): Promise<ModelView[]> {
    return this.#json('GET', `/v1/models${name === undefined ? '' : `?name=${encodeURIComponent(name)}`}`);
  }

  getModel(key: ModelKey): Promise<ModelView> {
    return this.#json('GET', modelPath(key));
  }

  /** Registers a model whose files are reachable by URI; it starts PENDING. */
  registerModel(registration: ModelRegistration): Promise<ModelView> {
    return this.#json('POST', '/v1/models', registration);
  }

  /**
   * Uploads a model directory as multipart/form-data (the Blobs stream from disk); it starts
   * PENDING. `onBytes` hears the bytes sent so far as the body streams out.
   */
  uploadModel(form: FormData, onBytes?: (sentBytes: number) => void): Promise<ModelView> {
    return this.#json('POST', '/v1/models/upload', onBytes ? countingBody(form, onBytes) : form, {
      timeoutMs: null,
    });
  }

  async removeModel(key: ModelKey): Promise<void> {
    await this.#send('DELETE', modelPath(key));
  }

  getVersionPolicy(name: string): Promise<VersionPolicyView> {
    return this.#json('GET', versionPolicyPath(name));
  }

  setVersionPolicy(name: string, policy: VersionPolicy): Promise<VersionPolicyView> {
    return this.#json('PUT', versionPolicyPath(name), policy);
  }

  /** Back to the default policy, latest 1. */
  resetVersionPolicy(name: string): Promise<VersionPolicyView> {
    return this.#json('DELETE', versionPolicyPath(name));
  }

  listEndpoints(): Promise<EndpointView[]> {
    return this.#json('GET', '/v1/endpoints');
  }

  getEndpoint(name: string): Promise<EndpointView> {
    return this.#json('GET', `/v1/endpoints/${encodeURIComponent(name)}`);
  }

  createEndpoint(creation: EndpointCreation): Promise<EndpointView> {
    return this.#json('POST', '/v1/endpoints', creation);
  }

  async removeEndpoint(name: string): Promise<void> {
    await this.#send('DELETE', `/v1/endpoints/${encodeURIComponent(name)}`);
  }

  setRoutes(endpoint: string, routes: readonly RouteRequest[]): Promise<EndpointView> {
    return this.#json('PUT', `/v1/endpoints/${encodeURIComponent(endpoint)}/routes`, { routes });
  }

  /** Starts a rollout of `endpoint` to `request.to`; the registry then moves it window by window. */
  startRollout(endpoint: string, request: StartRolloutRequest): Promise<RolloutView> {
    return this.#json('POST', `/v1/endpoints/${encodeURIComponent(endpoint)}/rollouts`, request);
  }

  /** The endpoint's latest rollout, with the running window's numbers. */
  getRollout(endpoint: string): Promise<RolloutView> {
    return this.#json('GET', rolloutPath(endpoint));
  }

  /** Pauses, resumes, aborts (previous routes back) or promotes (to 100 %) the rollout in progress. */
  moveRollout(endpoint: string, move: 'pause' | 'resume' | 'abort' | 'promote'): Promise<RolloutView> {
    return this.#json('POST', `${rolloutPath(endpoint)}/${move}`);
  }

  /** Creates a token; the answer carries its secret, which the registry never shows again. */
  createToken(name: string, role: TokenRole): Promise<TokenView & { token: string }> {
    return this.#json('POST', '/v1/tokens', { name, role });
  }

  listTokens(): Promise<TokenView[]> {
    return this.#json('GET', '/v1/tokens');
  }

  revokeToken(name: string): Promise<TokenView> {
    return this.#json('DELETE', `/v1/tokens/${encodeURIComponent(name)}`);
  }

  /** The registry's release (`GET /v1/version`, no token needed). */
  version(): Promise<{ component: string; version: string; api: string }> {
    return this.#json('GET', '/v1/version');
  }

  status(): Promise<FleetStatusView> {
    return this.#json('GET', '/v1/status');
  }

  async #json<T>(
    method: string,
    path: string,
    body?: unknown,
    options?: { timeoutMs: number | null },
  ): Promise<T> {
    const response = await this.#send(method, path, body, options);
    return (await response.json()) as T;
  }

  /** Sends one call; resolves with a 2xx response, throws RegistryApiError or RegistryUnreachableError. */
  async #send(
    method: string,
    path: string,
    body?: unknown,
    options: { timeoutMs: number | null } = { timeoutMs: REQUEST_TIMEOUT_MS },
  ): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.token !== undefined) headers.authorization = `Bearer ${this.token}`;
    let payload: FormData | ReadableStream<Uint8Array> | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (isStreamedBody(body)) {
      headers['content-type'] = body.contentType;
      payload = body.stream;
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const url = `${this.baseUrl}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
        // A stream body must say it is sent while the answer may already arrive (undici).
        ...(payload instanceof ReadableStream ? { duplex: 'half' } : {}),
        ...(options.timeoutMs === null ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
      });
    } catch (error) {
      throw new RegistryUnreachableError(
        `cannot reach the registry at ${this.baseUrl}: ${describeFetchFailure(error)} ` +
          '(set --registry or MODELGATE_REGISTRY)',
        { cause: error },
      );
    }
    if (response.ok) return response;
    throw await this.#apiError(response);
  }

  async #apiError(response: Response): Promise<RegistryApiError> {
    const text = await response.text().catch(() => '');
    let body: Partial<ApiErrorBody> = {};
    try {
      body = JSON.parse(text) as Partial<ApiErrorBody>;
    } catch {
      // not the registry's JSON envelope (a proxy's page, say): fall back to the status line
    }
    const error = body.error;
    const code = error?.code ?? `HTTP_${response.status}`;
    let message = error?.message ?? `HTTP ${response.status} ${response.statusText}`.trim();
    if (response.status === 401 && this.token === undefined) message += ' (set MODELGATE_TOKEN)';
    if (response.headers.get(COMPONENT_HEADER) === 'gateway') message += GATEWAY_HINT;
    return new RegistryApiError(response.status, code, message, error?.field, error?.request_id);
  }
}

function rolloutPath(endpoint: string): string {
  return `/v1/endpoints/${encodeURIComponent(endpoint)}/rollout`;
}

function isStreamedBody(body: unknown): body is StreamedBody {
  return typeof body === 'object' && body !== null && (body as StreamedBody).stream instanceof ReadableStream;
}

function versionPolicyPath(name: string): string {
  return `/v1/models/${encodeURIComponent(name)}/version-policy`;
}

function modelPath(key: ModelKey): string {
  return `/v1/models/${encodeURIComponent(key.name)}/${encodeURIComponent(key.version)}`;
}

/** The useful part of a fetch failure: undici wraps the socket error (ECONNREFUSED, ...) in `cause`. */
function describeFetchFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'TimeoutError') return 'no answer in time';
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}
