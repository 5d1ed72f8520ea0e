/** What an admin API call answered. */
export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** The shape of every error body. */
export interface ApiErrorBody {
  error: { code: string; message: string; request_id: string; field?: string };
}

/** A thin fetch wrapper over the admin API for tests. */
export class RegistryClient {
  constructor(
    readonly url: string,
    readonly token?: string,
  ) {}

  async request<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> {
    const init: RequestInit = {
      method,
      headers: {
        ...(this.token === undefined ? {} : { authorization: `Bearer ${this.token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    };
    const response = await fetch(`${this.url}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('json') && text !== '')
      parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }

  get<T = unknown>(path: string, headers?: Record<string, string>): Promise<ApiResponse<T>> {
    return this.request<T>('GET', path, undefined, headers);
  }

  post<T = unknown>(path: string, body: unknown): Promise<ApiResponse<T>> {
    return this.request<T>('POST', path, body);
  }

  put<T = unknown>(path: string, body: unknown): Promise<ApiResponse<T>> {
    return this.request<T>('PUT', path, body);
  }

  patch<T = unknown>(path: string, body: unknown): Promise<ApiResponse<T>> {
    return this.request<T>('PATCH', path, body);
  }

  delete<T = unknown>(path: string): Promise<ApiResponse<T>> {
    return this.request<T>('DELETE', path);
  }
}
