// A CONNECT tunnel through a forward proxy (HTTPS_PROXY / HTTP_PROXY): the proxy opens a TCP
// connection to the address given, and the socket then carries the request as a direct one
// would (TLS over it for https). The address is one the caller already vetted, so the SSRF guard
// still decides where the bytes go; the proxy cannot be asked to resolve the name again.
import {
  Agent as HttpAgent,
  type ClientRequestArgs,
  type IncomingMessage,
  request as httpRequest,
} from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { type Duplex } from 'node:stream';
import { isIPv6, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { redactUri } from './redact-uri.js';

/** Where a tunnel goes: a vetted address and port, for requests to `target`. */
export interface TunnelTarget {
  address: string;
  port: number;
  target: URL;
}

/** The proxy's `host:port` as shown in messages (no credentials). */
const shown = (proxy: URL): string => `proxy ${proxy.host}`;

/**
 * Opens a CONNECT tunnel through `proxy` to the target's vetted address and resolves with the
 * socket (wrapped in TLS for an https target, checked against the target's host name). Rejects
 * with UNAVAILABLE when the proxy cannot be reached or refuses (its status in the message).
 */
export async function openTunnel(
  proxy: URL,
  { address, port, target }: TunnelTarget,
  options: { signal: AbortSignal; idleTimeoutMs: number },
): Promise<Socket | TLSSocket> {
  const authority = `${isIPv6(address) ? `[${address}]` : address}:${port}`;
  const credentials =
    proxy.username === '' && proxy.password === ''
      ? {}
      : {
          'proxy-authorization': `Basic ${Buffer.from(
            `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`,
          ).toString('base64')}`,
        };
  const socket = await new Promise<Socket>((resolve, reject) => {
    const connect = httpRequest({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port === '' ? 80 : Number(proxy.port),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...credentials },
      agent: false,
      signal: options.signal,
      timeout: options.idleTimeoutMs,
    });
    const fail = (why: string, cause?: unknown) =>
      reject(
        new ModelgateError(
          ErrorCode.UNAVAILABLE,
          `${shown(proxy)} could not open a tunnel to ${authority} for ${redactUri(target.href)}: ${why}`,
          {},
          cause === undefined ? undefined : { cause },
        ),
      );
    connect.on('connect', (response: IncomingMessage, tunnel: Socket) => {
      if (response.statusCode === 200) return resolve(tunnel);
      tunnel.destroy();
      fail(`it answered ${response.statusCode ?? 0} ${response.statusMessage ?? ''}`.trim());
    });
    connect.on('timeout', () => connect.destroy(new Error(`no answer for ${options.idleTimeoutMs} ms`)));
    connect.on('error', (error) => fail(error.message, error));
    connect.end();
  });
  if (target.protocol !== 'https:') return socket;
  const servername = target.hostname.replace(/^\[|\]$/g, '');
  return await new Promise<TLSSocket>((resolve, reject) => {
    const secure = tlsConnect({ socket, servername, host: servername });
    secure.once('secureConnect', () => resolve(secure));
    secure.once('error', reject);
  });
}

/**
 * An http(s) Agent whose connections are CONNECT tunnels through `proxy` (to the request's host,
 * resolved by the proxy), for clients that take an Agent (the AWS SDK's S3 handler).
 */
export function tunnelAgent(proxy: URL, protocol: 'http:' | 'https:', idleTimeoutMs = 30_000): HttpAgent {
  const Base = protocol === 'https:' ? HttpsAgent : HttpAgent;
  class TunnelAgent extends Base {
    override createConnection(
      options: ClientRequestArgs,
      callback?: (error: Error | null, socket: Duplex) => void,
    ): undefined {
      const host = String(options.hostname ?? options.host ?? '').replace(/^\[|\]$/g, '');
      const port = Number(options.port ?? (protocol === 'https:' ? 443 : 80));
      const target = new URL(`${protocol}//${isIPv6(host) ? `[${host}]` : host}:${port}/`);
      openTunnel(
        proxy,
        { address: host, port, target },
        { signal: new AbortController().signal, idleTimeoutMs },
      ).then(
        (socket) => callback?.(null, socket),
        (error: unknown) =>
          callback?.(error instanceof Error ? error : new Error(String(error)), undefined as never),
      );
      return undefined;
    }
  }
  return new TunnelAgent({ keepAlive: true });
}
