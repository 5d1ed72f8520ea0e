import {
  type ConfigSnapshot,
  type CreatedTokenView,
  type CreateEndpointRequest,
  type CreateTokenRequest,
  type EndpointView,
  type FleetStatusView,
  type ModelView,
  type RegisterModelRequest,
  type RegistryVersionView,
  type RolloutView,
  type RouteRequest,
  type StartRolloutRequest,
  type TokenView,
  type UpdateEndpointRequest,
  type VersionPolicy,
  type VersionPolicyView,
  createdTokenViewSchema,
  endpointViewSchema,
  fleetStatusViewSchema,
  modelViewSchema,
  registryVersionViewSchema,
  rolloutViewSchema,
  tokenViewSchema,
  versionPolicyViewSchema,
} from '@modelgate/contracts';
import { z } from 'zod';
import { AdminAnswerError, AdminApiError } from './admin-errors.js';
import {
  type AdminAnswer,
  readAnswer,
  sendCall,
  answeredByGateway,
  toAdminApiError,
  type TransportOptions,
} from './admin-transport.js';
import { countingBody } from './upload-body.js';

/** Where the registry is and how to call it. */
export interface AdminClientOptions {
  /** Registry base URL, e.g. `http://127.0.0.1:8081` (trailing slashes are dropped). */
  baseUrl: string;
  /** Bearer token: admin for changes, viewer for reads; none for the public routes. */
  token?: string;
  /** Deadline of one ordinary call, in ms. @defaultValue 30000 */
  timeoutMs?: number;
  /** Deadline of an upload, in ms; null for none (model files are large). @defaultValue null */
  uploadTimeoutMs?: number | null;
  /** Aborts every call (the caller is stopping). */
  signal?: AbortSignal;
}

/** `name` and `version` of a model, as the registry's paths take them. */
export interface ModelKey {
  name: string;
  version: string;
}

/** What a rollout in progress can be told to do. */
export type RolloutMove = 'pause' | 'resume' | 'abort' | 'promote';

/** The config snapshot is passed on as sent (its readers validate it): only its being an object is checked. */
const ANY_OBJECT = z.custom<object>(
  (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
  'expected an object',
);

/** Deadline of one ordinary call when none is given, in ms. */
const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * The registry's admin API (`/v1/...`), one typed method per route. A non-2xx answer throws
 * AdminApiError (the registry's code, message, field and request id); no answer throws
 * AdminUnreachableError. `request` sends any call and resolves with any answer, for probes and tests.
 */
export class AdminClient {
  readonly baseUrl: string;
  readonly token: string | undefined;
  readonly #transport: TransportOptions;
  readonly #timeoutMs: number;
  readonly #uploadTimeoutMs: number | null;

  constructor(options: AdminClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.#transport = { baseUrl: this.baseUrl, token: options.token, signal: options.signal };
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#uploadTimeoutMs = options.uploadTimeoutMs ?? null;
  }

  /** Every model version, or the versions of model `name`. */
  listModels(name?: string): Promise<ModelView[]> {
    return this.#json(
      'GET',
      `/v1/models${name === undefined ? '' : `?name=${encodeURIComponent(name)}`}`,
      z.array(modelViewSchema),
    );
  }

  getModel(key: ModelKey): Promise<ModelView> {
    return this.#json('GET', modelPath(key), modelViewSchema);
  }

  /** Registers a model whose files are reachable by URI (or on the Hub, `source`); it starts PENDING. */
  registerModel(registration: RegisterModelRequest): Promise<ModelView> {
    return this.#json('POST', '/v1/models', modelViewSchema, registration);
  }

  /**
   * Uploads a model as multipart/form-data (see `modelUploadForm`); it starts PENDING. `onBytes`
   * hears the bytes sent so far as the body streams out.
   */
  uploadModel(form: FormData, options: { onBytes?: (sentBytes: number) => void } = {}): Promise<ModelView> {
    const { onBytes } = options;
    const body = onBytes === undefined ? form : countingBody(form, onBytes);
    return this.#json('POST', '/v1/models/upload', modelViewSchema, body, this.#uploadTimeoutMs);
  }

  /** Deletes a model version (refused while a route uses it). */
  async removeModel(key: ModelKey): Promise<void> {
    await this.#ok('DELETE', modelPath(key));
  }

  getVersionPolicy(name: string): Promise<VersionPolicyView> {
    return this.#json('GET', versionPolicyPath(name), versionPolicyViewSchema);
  }

  setVersionPolicy(name: string, policy: VersionPolicy): Promise<VersionPolicyView> {
    return this.#json('PUT', versionPolicyPath(name), versionPolicyViewSchema, policy);
  }

  /** Back to the default policy, latest 1. */
  resetVersionPolicy(name: string): Promise<VersionPolicyView> {
    return this.#json('DELETE', versionPolicyPath(name), versionPolicyViewSchema);
  }

  listEndpoints(): Promise<EndpointView[]> {
    return this.#json('GET', '/v1/endpoints', z.array(endpointViewSchema));
  }

  getEndpoint(name: string): Promise<EndpointView> {
    return this.#json('GET', endpointPath(name), endpointViewSchema);
  }

  /** The endpoint, or undefined when there is none by that name. */
  async findEndpoint(name: string): Promise<EndpointView | undefined> {
    try {
      return await this.getEndpoint(name);
    } catch (error) {
      if (error instanceof AdminApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  createEndpoint(creation: CreateEndpointRequest): Promise<EndpointView> {
    return this.#json('POST', '/v1/endpoints', endpointViewSchema, creation);
  }

  updateEndpoint(name: string, update: UpdateEndpointRequest): Promise<EndpointView> {
    return this.#json('PATCH', endpointPath(name), endpointViewSchema, update);
  }

  async removeEndpoint(name: string): Promise<void> {
    await this.#ok('DELETE', endpointPath(name));
  }

  /** Replaces the endpoint's routes at once; the registry fills in missing roles. */
  setRoutes(endpoint: string, routes: readonly RouteRequest[]): Promise<EndpointView> {
    return this.#json('PUT', `${endpointPath(endpoint)}/routes`, endpointViewSchema, { routes });
  }

  /** Starts a rollout of `endpoint` to `request.to`; the registry then moves it window by window. */
  startRollout(endpoint: string, request: StartRolloutRequest): Promise<RolloutView> {
    return this.#json('POST', `${endpointPath(endpoint)}/rollouts`, rolloutViewSchema, request);
  }

  /** The endpoint's latest rollout, with the running window's numbers. */
  getRollout(endpoint: string): Promise<RolloutView> {
    return this.#json('GET', `${endpointPath(endpoint)}/rollout`, rolloutViewSchema);
  }

  /** Pauses, resumes, aborts (previous routes back) or promotes (to 100 %) the rollout in progress. */
  moveRollout(endpoint: string, move: RolloutMove): Promise<RolloutView> {
    return this.#json('POST', `${endpointPath(endpoint)}/rollout/${move}`, rolloutViewSchema);
  }

  /** Creates a token; the answer carries its secret, which the registry never shows again. */
  createToken(request: CreateTokenRequest): Promise<CreatedTokenView> {
    return this.#json('POST', '/v1/tokens', createdTokenViewSchema, request);
  }

  listTokens(): Promise<TokenView[]> {
    return this.#json('GET', '/v1/tokens', z.array(tokenViewSchema));
  }

  revokeToken(name: string): Promise<TokenView> {
    return this.#json('DELETE', `/v1/tokens/${encodeURIComponent(name)}`, tokenViewSchema);
  }

  /** The registry's release (`GET /v1/version`, no token needed). */
  version(): Promise<RegistryVersionView> {
    return this.#json('GET', '/v1/version', registryVersionViewSchema);
  }

  /** The fleet: latest revision, live nodes, rollouts in progress. */
  status(): Promise<FleetStatusView> {
    return this.#json('GET', '/v1/status', fleetStatusViewSchema);
  }

  /** The config snapshot gateways and workers apply (`GET /v1/config/snapshot`, as sent: not validated here). */
  configSnapshot(): Promise<ConfigSnapshot> {
    return this.#json('GET', '/v1/config/snapshot', ANY_OBJECT as z.ZodType<ConfigSnapshot>);
  }

  /** Whether this client's token may read the config snapshot (what gateways and workers need). */
  async canReadSnapshot(): Promise<boolean> {
    const response = await sendCall(this.#transport, 'GET', '/v1/config/snapshot', {
      timeoutMs: this.#timeoutMs,
    });
    await response.body?.cancel();
    if (response.status === 401 || response.status === 403) return false;
    if (!response.ok) throw await toAdminApiError(response, this.token !== undefined);
    return true;
  }

  /**
   * Any call, answered with any status (an error status does not throw; no answer does): for
   * probes and for tests of the API itself. A string body is sent as it is, as JSON unless
   * `headers` say otherwise.
   */
  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<AdminAnswer<T>> {
    const response = await sendCall(this.#transport, method, path, {
      body,
      headers,
      timeoutMs: this.#timeoutMs,
    });
    return readAnswer<T>(response);
  }

  /** `request('GET', ...)`. */
  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<AdminAnswer<T>> {
    return this.request<T>('GET', path, undefined, headers);
  }

  /** `request('POST', ...)`. */
  post<T = unknown>(path: string, body?: unknown): Promise<AdminAnswer<T>> {
    return this.request<T>('POST', path, body);
  }

  /** `request('PUT', ...)`. */
  put<T = unknown>(path: string, body?: unknown): Promise<AdminAnswer<T>> {
    return this.request<T>('PUT', path, body);
  }

  /** `request('PATCH', ...)`. */
  patch<T = unknown>(path: string, body?: unknown): Promise<AdminAnswer<T>> {
    return this.request<T>('PATCH', path, body);
  }

  /** `request('DELETE', ...)`. */
  delete<T = unknown>(path: string): Promise<AdminAnswer<T>> {
    return this.request<T>('DELETE', path);
  }

  /** A 2xx answer's body, checked against what the route answers: anything else is not the registry. */
  async #json<T>(
    method: string,
    path: string,
    schema: z.ZodType<T>,
    body?: unknown,
    timeoutMs?: number | null,
  ): Promise<T> {
    const response = await this.#ok(method, path, body, timeoutMs);
    const text = await response.text();
    const call = `${method} ${path}`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text) as unknown;
    } catch {
      const type = response.headers.get('content-type') ?? 'no content type';
      const what = text === '' ? 'an empty body' : `a body that is not JSON (${type})`;
      throw new AdminAnswerError(this.baseUrl, call, response.status, what);
    }
    const checked = schema.safeParse(parsed);
    if (checked.success) return checked.data;
    const issue = checked.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new AdminAnswerError(
      this.baseUrl,
      call,
      response.status,
      `JSON that is not this route's answer (${issue?.message ?? 'unexpected shape'}${where})`,
    );
  }

  /** Sends one call; resolves with a 2xx response, throws AdminApiError or AdminUnreachableError. */
  async #ok(method: string, path: string, body?: unknown, timeoutMs?: number | null): Promise<Response> {
    const response = await sendCall(this.#transport, method, path, {
      body,
      timeoutMs: timeoutMs === undefined ? this.#timeoutMs : timeoutMs,
    });
    // A gateway answers some admin paths itself (GET /v1/models is OpenAI's list there): never read it as the registry.
    if (response.ok && !answeredByGateway(response)) return response;
    throw await toAdminApiError(response, this.token !== undefined);
  }
}

function modelPath(key: ModelKey): string {
  return `/v1/models/${encodeURIComponent(key.name)}/${encodeURIComponent(key.version)}`;
}

function versionPolicyPath(name: string): string {
  return `/v1/models/${encodeURIComponent(name)}/version-policy`;
}

function endpointPath(name: string): string {
  return `/v1/endpoints/${encodeURIComponent(name)}`;
}
