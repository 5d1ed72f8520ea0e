import { lookup as dnsLookup } from 'node:dns/promises';
import {
  type IncomingHttpHeaders,
  type IncomingMessage,
  request as httpRequest,
  type RequestOptions,
} from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type HostAllowlist, isForbiddenAddress } from './address-policy.js';
import { type ProxySettings, proxyFor } from './outbound-proxy.js';
import { openTunnel } from './proxy-tunnel.js';
import { type SourceStream } from './file-source.js';
import { redactUri } from './redact-uri.js';

/** How {@link openHttpSource} may reach a server. */
export interface HttpSourceOptions {
  /** Hosts and addresses allowed even though they are loopback, private, link-local, ... */
  allowlist: HostAllowlist;
  /** Largest body accepted, by Content-Length (the caller also counts the streamed bytes). */
  maxBytes: number;
  /** Longest silence allowed while connecting or between bytes, in milliseconds. */
  idleTimeoutMs: number;
  /** Most redirects followed; each hop passes every check again. */
  maxRedirects: number;
  /** Aborts DNS, connect and the transfer (the caller's whole-transfer deadline). */
  signal: AbortSignal;
  /** Bearer tokens by origin (`http://registry:8081`); sent only to that exact origin, never across a redirect elsewhere. */
  bearerTokens?: Readonly<Record<string, string>>;
  /** Forward proxies (HTTPS_PROXY, HTTP_PROXY, NO_PROXY): a request goes through a CONNECT tunnel to its vetted address. */
  proxy?: ProxySettings | undefined;
  /** Hears every response's status and headers, redirects and errors included, before it is handled. */
  onResponse?: (response: { url: URL; status: number; headers: IncomingHttpHeaders }) => void;
}

interface VettedAddress {
  address: string;
  family: 4 | 6;
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * GETs an http(s) URL with an SSRF guard: every address the host resolves to must be public
 * (or allowlisted), the connection goes to a vetted address only (no second DNS answer can
 * rebind it), and redirects are followed by hand, each hop vetted again. Resolves with the 2xx
 * response body; the caller consumes it.
 */
export async function openHttpSource(uri: string, options: HttpSourceOptions): Promise<SourceStream> {
  let url = parseHttpUrl(uri, uri);
  for (let hop = 0; ; hop += 1) {
    const addresses = await vetHost(url, options);
    const response = await get(url, addresses, options);
    const status = response.statusCode ?? 0;
    options.onResponse?.({ url, status, headers: response.headers });
    const location = response.headers.location;
    if (REDIRECT_STATUSES.has(status) && location !== undefined) {
      response.resume();
      if (hop >= options.maxRedirects) {
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `${redactUri(uri)}: more than ${options.maxRedirects} redirects`,
        );
      }
      const next = parseHttpUrl(resolveLocation(location, url, uri), uri);
      if (url.protocol === 'https:' && next.protocol === 'http:') {
        throw new ModelgateError(
          ErrorCode.PERMISSION_DENIED,
          `${redactUri(uri)}: refusing a redirect from https to plain http (${redactUri(next.href)})`,
        );
      }
      url = next;
      continue;
    }
    if (status < 200 || status > 299) {
      response.resume();
      throw new ModelgateError(
        codeForStatus(status),
        `GET ${redactUri(url.href)} answered HTTP ${status}${response.statusMessage ? ` ${response.statusMessage}` : ''}`,
      );
    }
    const declared = Number(response.headers['content-length']);
    const declaredBytes = Number.isSafeInteger(declared) && declared >= 0 ? declared : undefined;
    if (declaredBytes !== undefined && declaredBytes > options.maxBytes) {
      response.destroy();
      throw new ModelgateError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `${redactUri(uri)} is ${declaredBytes} bytes (Content-Length), over the limit of ${options.maxBytes} bytes`,
      );
    }
    return declaredBytes === undefined ? { stream: response } : { stream: response, declaredBytes };
  }
}

/** Resolves the URL's host and checks every address; throws PERMISSION_DENIED naming the first bad one. */
async function vetHost(url: URL, options: HttpSourceOptions): Promise<VettedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = isIP(host);
  let addresses: VettedAddress[];
  if (literal === 4 || literal === 6) {
    addresses = [{ address: host, family: literal }];
  } else {
    addresses = await abortable(dnsLookup(host, { all: true, verbatim: true }), options.signal).then(
      (found) => found.map((entry) => ({ address: entry.address, family: entry.family === 6 ? 6 : 4 })),
      (error: unknown) => {
        if (options.signal.aborted) throw error;
        throw new ModelgateError(
          ErrorCode.UNAVAILABLE,
          `cannot resolve host "${host}" of ${redactUri(url.href)}: ${(error as Error).message}`,
          {},
          { cause: error },
        );
      },
    );
  }
  if (addresses.length === 0) {
    throw new ModelgateError(
      ErrorCode.UNAVAILABLE,
      `host "${host}" of ${redactUri(url.href)} has no address`,
    );
  }
  if (literal === 0 && options.allowlist.allowsHost(host)) return addresses;
  for (const { address } of addresses) {
    const reason = isForbiddenAddress(address);
    if (reason !== undefined && !options.allowlist.allowsAddress(address)) {
      throw new ModelgateError(
        ErrorCode.PERMISSION_DENIED,
        `refusing to fetch ${redactUri(url.href)}: host "${host}" resolves to ${address}, a ${reason} address; ` +
          `list the host or address in allowedHosts to allow it`,
      );
    }
  }
  return addresses;
}

/** One GET to one of the vetted addresses (through the proxy's tunnel, when one applies); resolves once the response headers arrive. */
async function get(
  url: URL,
  addresses: VettedAddress[],
  options: HttpSourceOptions,
): Promise<IncomingMessage> {
  // Node asks this instead of DNS, so the socket can only reach an address vetted above.
  const lookup: LookupFunction = (_hostname, lookupOptions, callback) => {
    const first = addresses[0];
    if (lookupOptions.all) callback(null, addresses);
    else if (first) callback(null, first.address, first.family);
    else callback(new Error('no vetted address'), '');
  };
  const requestOptions: RequestOptions = {
    method: 'GET',
    protocol: url.protocol,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? undefined : Number(url.port),
    path: `${url.pathname}${url.search}`,
    headers: {
      accept: '*/*',
      'accept-encoding': 'identity',
      'user-agent': 'modelgate-model-store',
      ...(options.bearerTokens?.[url.origin]
        ? { authorization: `Bearer ${options.bearerTokens[url.origin]}` }
        : {}),
    },
    lookup,
    agent: false,
    signal: options.signal,
    timeout: options.idleTimeoutMs,
  };
  const proxy = proxyFor(url, options.proxy);
  if (proxy !== undefined) {
    const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
    const tunnel = await openTunnel(proxy, { address: addresses[0]!.address, port, target: url }, options);
    delete requestOptions.lookup;
    delete requestOptions.agent;
    requestOptions.createConnection = () => tunnel;
  }
  if (url.username !== '' || url.password !== '') {
    requestOptions.auth = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<IncomingMessage>((resolvePromise, reject) => {
    let response: IncomingMessage | undefined;
    const request = send(requestOptions, (incoming) => {
      response = incoming;
      resolvePromise(incoming);
    });
    // The socket timeout covers connecting and every later silence, body included.
    request.on('timeout', () => {
      const error = new ModelgateError(
        ErrorCode.DEADLINE_EXCEEDED,
        `${redactUri(url.href)}: no data for ${options.idleTimeoutMs} ms`,
      );
      if (response) response.destroy(error);
      else request.destroy(error);
    });
    request.on('error', (error) => {
      if (response) response.destroy(error);
      else reject(error);
    });
    request.end();
  });
}

function parseHttpUrl(text: string, original: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${redactUri(text)} is not a valid URI`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      text === original
        ? `${redactUri(text)} is not an http(s) URI`
        : `${redactUri(original)} redirects to ${redactUri(text)}, which is not http(s)`,
    );
  }
  return url;
}

/** The absolute URL a Location header points to; credentials never carry over to another origin. */
function resolveLocation(location: string, base: URL, original: string): string {
  let next: URL;
  try {
    next = new URL(location, base);
  } catch {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${redactUri(original)}: bad redirect Location`);
  }
  if (next.origin !== base.origin) {
    next.username = '';
    next.password = '';
  } else if (next.username === '' && next.password === '') {
    next.username = base.username;
    next.password = base.password;
  }
  return next.href;
}

function codeForStatus(status: number): ErrorCode {
  if (status === 404 || status === 410) return ErrorCode.NOT_FOUND;
  if (status === 401 || status === 403) return ErrorCode.PERMISSION_DENIED;
  if (status === 408 || status === 429 || status >= 500) return ErrorCode.UNAVAILABLE;
  return ErrorCode.INVALID_ARGUMENT;
}

function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolvePromise, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    void promise.then(resolvePromise, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
