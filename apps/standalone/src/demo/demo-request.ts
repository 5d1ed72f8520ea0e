import { DEMO_NAME } from './demo-model.js';

/** The body of the request the launcher tries and prints. */
export const DEMO_BODY = { text: 'I love this movie' };

/** Hosts that `localhost` reaches. */
const LOCAL_HOSTS = new Set(['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost']);

/** `localhost:8080`, or the gateway's own interface when it is bound to a specific one. */
export function displayAddress(host: string, port: number): string {
  if (LOCAL_HOSTS.has(host)) return `localhost:${port}`;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The curl line printed for the user to try. */
export function demoCurlLine(gatewayHost: string, gatewayPort: number): string {
  const address = displayAddress(gatewayHost, gatewayPort);
  return `curl -s ${address}/serve/${DEMO_NAME} -H 'content-type: application/json' -d '${JSON.stringify(DEMO_BODY)}'`;
}

/**
 * Sends the demo request once; resolves with the answer's text when it is a 200, undefined
 * otherwise (a waitUntil check: the gateway answers 404 or 503 until it has the endpoint and a
 * ready worker).
 */
export async function tryDemoRequest(gatewayUrl: string): Promise<string | undefined> {
  const response = await fetch(`${gatewayUrl}/serve/${DEMO_NAME}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(DEMO_BODY),
    signal: AbortSignal.timeout(5000),
  });
  const text = await response.text();
  return response.status === 200 ? text : undefined;
}
