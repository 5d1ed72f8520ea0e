/** A model version as the registry shows it (the fields the launcher uses). */
export interface RegistryModel {
  id: string;
  name: string;
  version: string;
  status: 'PENDING' | 'PREPARING' | 'READY' | 'FAILED';
  statusReason: string | null;
}

/** An endpoint as the registry shows it (the fields the launcher uses). */
export interface RegistryEndpoint {
  name: string;
  routes: { model: string; weight: number; role: string }[];
}

/** A non-2xx answer of the registry. */
export class RegistryRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RegistryRequestError';
  }
}

/** Timeout of one admin call, in ms (an upload of a big model can take a while). */
const REQUEST_TIMEOUT_MS = 120_000;

/** The few admin calls the launcher makes, over the registry's REST API. */
export class RegistryAdminClient {
  /** `signal` aborts every call (the launcher is stopping). */
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    private readonly signal?: AbortSignal,
  ) {}

  /** Every version of model `name` (empty when there is none). */
  async listModels(name: string): Promise<RegistryModel[]> {
    return this.#call<RegistryModel[]>('GET', `/v1/models?name=${encodeURIComponent(name)}`);
  }

  async getModel(name: string, version: string): Promise<RegistryModel> {
    return this.#call<RegistryModel>('GET', `/v1/models/${name}/${version}`);
  }

  /** `POST /v1/models/upload`: form fields plus files (by their upload names). */
  async uploadModel(fields: Record<string, string>, files: Record<string, Blob>): Promise<RegistryModel> {
    const form = new FormData();
    for (const [key, value] of Object.entries(fields)) form.append(key, value);
    for (const [fileName, blob] of Object.entries(files)) form.append(fileName, blob, fileName);
    return this.#call<RegistryModel>('POST', '/v1/models/upload', form);
  }

  /** The endpoint, or undefined when there is none by that name. */
  async findEndpoint(name: string): Promise<RegistryEndpoint | undefined> {
    try {
      return await this.#call<RegistryEndpoint>('GET', `/v1/endpoints/${name}`);
    } catch (error) {
      if (error instanceof RegistryRequestError && error.status === 404) return undefined;
      throw error;
    }
  }

  async createEndpoint(input: { name: string; task: string; model: string }): Promise<RegistryEndpoint> {
    return this.#call<RegistryEndpoint>('POST', '/v1/endpoints', input);
  }

  /** Creates a token; its secret is in the answer only. */
  async createToken(name: string, role: 'admin' | 'viewer'): Promise<string> {
    return (await this.#call<{ token: string }>('POST', '/v1/tokens', { name, role })).token;
  }

  async #call<T>(method: string, path: string, body?: FormData | object): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}` };
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
    const response = await fetch(new URL(path, this.baseUrl), {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {}),
      signal: AbortSignal.any([
        AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        ...(this.signal ? [this.signal] : []),
      ]),
    });
    const text = await response.text();
    if (!response.ok) {
      throw new RegistryRequestError(
        response.status,
        `${method} ${path}: ${response.status} ${errorMessageOf(text)}`,
      );
    }
    return JSON.parse(text) as T;
  }
}

/** The message of the registry's `{"error": {"message"}}` body, or the start of the text. */
function errorMessageOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON
  }
  return text.slice(0, 200);
}

/** Whether `token` may read the registry's config snapshot (what the gateway and worker need). */
export async function canReadSnapshot(baseUrl: string, token: string): Promise<boolean> {
  const response = await fetch(new URL('/v1/config/snapshot', baseUrl), {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  if (response.status === 401 || response.status === 403) return false;
  if (!response.ok) throw new Error(`GET /v1/config/snapshot: ${response.status}`);
  return true;
}
