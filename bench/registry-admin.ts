/** Calls to the registry's admin API (`/v1/...`) with a bearer token. */

/** An admin API call that resolves with the parsed body of a 2xx answer. */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

/** An admin API answer: its status and parsed body (text when not JSON). */
export interface AdminAnswer {
  status: number;
  body: unknown;
}

/** An admin API call that resolves with any answer; rejects only when none came (e.g. connection refused). */
export function adminRequest(
  url: string,
  token: string,
): (method: string, path: string, body?: unknown) => Promise<AdminAnswer> {
  return async (method, path, body) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? (JSON.parse(text) as unknown) : undefined;
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed };
  };
}

/** An admin API call that rejects on a non-2xx answer. */
export function adminCall(url: string, token: string): AdminCall {
  const request = adminRequest(url, token);
  return async (method, path, body) => {
    const answer = await request(method, path, body);
    if (answer.status < 200 || answer.status >= 300) {
      const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
      throw new Error(`${method} ${path} answered ${answer.status}: ${text.slice(0, 300)}`);
    }
    return answer.body;
  };
}
