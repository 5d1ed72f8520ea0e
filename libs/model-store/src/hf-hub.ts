/**
 * Downloads files of Hugging Face Hub model repositories through the Hub's resolve URLs, with the
 * same SSRF guard as http(s) artifacts: the endpoint and every redirect hop (the Hub sends large
 * files to a CDN) must be public or allowlisted. The token goes to the endpoint's origin only,
 * never to the CDN a redirect points at.
 */
import { type IncomingHttpHeaders } from 'node:http';
import { type Readable } from 'node:stream';
import {
  ErrorCode,
  formatHfUri,
  HF_DEFAULT_ENDPOINT,
  type HfModelRef,
  hfResolveUrl,
  isModelgateError,
  ModelgateError,
} from '@modelgate/contracts';
import { type HostAllowlist, parseHostAllowlist } from './address-policy.js';
import { type SourceStream } from './file-source.js';
import { openHttpSource } from './http-source.js';
import { type ProxySettings } from './outbound-proxy.js';

/** How the Hub is reached. */
export interface HfHubOptions {
  /** Base URL of the Hub or a mirror (HF_ENDPOINT). @defaultValue 'https://huggingface.co' */
  endpoint?: string;
  /** Access token (HF_TOKEN), sent as a Bearer token to the endpoint's origin only. */
  token?: string;
  /** Hosts, addresses or CIDR blocks fetched even though loopback, private or link-local. @defaultValue [] */
  allowedHosts?: readonly string[];
  /** Deadline of one file's download, in ms. @defaultValue 300000 */
  timeoutMs?: number;
  /** Longest silence while connecting or between bytes, in ms. @defaultValue 30000 */
  idleTimeoutMs?: number;
  /** Most redirects followed per file. @defaultValue 3 */
  maxRedirects?: number;
  /** Forward proxies (readProxySettings of HTTPS_PROXY, HTTP_PROXY, NO_PROXY). @defaultValue none */
  proxy?: ProxySettings | undefined;
}

/** What a sink made of a downloaded file: at least the digest and size of what it read. */
export interface DigestedFile {
  /** Lower-case hex SHA-256 of the bytes read. */
  sha256: string;
  bytes: number;
}

/** A downloaded file: what the sink made of it, and the commit the revision resolved to. */
export interface HubDownload<T> {
  stored: T;
  /** The commit hash the Hub served the file from (its X-Repo-Commit header), when it said. */
  commit: string | undefined;
}

/** Options of one download. */
export interface HubDownloadOptions {
  /** Largest file accepted (by Content-Length up front; the sink counts what streams). */
  maxBytes: number;
  /** When true, a file the repository does not have resolves to undefined instead of NOT_FOUND. */
  optional?: boolean;
  /** How messages name the repository. @defaultValue `hf://<org>/<name>@<revision>` */
  shownAs?: string;
}

const COMMIT_HASH = /^[0-9a-f]{40}$/;
const SHA256_ETAG = /^(?:W\/)?"?([0-9a-f]{64})"?$/i;

/** A client of one Hub endpoint. */
export class HfHub {
  /** The endpoint, without a trailing slash. */
  readonly endpoint: string;
  readonly #origin: string;
  readonly #token: string | undefined;
  readonly #allowlist: HostAllowlist;
  readonly #timeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #proxy: ProxySettings | undefined;
  readonly #maxRedirects: number;

  constructor(options: HfHubOptions = {}) {
    this.endpoint = (options.endpoint ?? HF_DEFAULT_ENDPOINT).replace(/\/+$/, '');
    let url: URL;
    try {
      url = new URL(this.endpoint);
    } catch {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `the Hub endpoint must be an http(s) URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `the Hub endpoint must be an http(s) URL`);
    }
    this.#origin = url.origin;
    this.#token = options.token === '' ? undefined : options.token;
    this.#allowlist = parseHostAllowlist(options.allowedHosts ?? []);
    this.#timeoutMs = options.timeoutMs ?? 300_000;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? 30_000;
    this.#proxy = options.proxy;
    this.#maxRedirects = options.maxRedirects ?? 3;
  }

  /**
   * Streams `file` (a path in the repository, e.g. `onnx/model.onnx`) of `ref` into `sink`, then
   * checks the size against Content-Length and, for files the Hub keeps in LFS, the digest against
   * the SHA-256 the Hub announces (X-Linked-Etag). Throws ModelgateError naming the repository
   * and the file: NOT_FOUND (no such repository, revision or file), PERMISSION_DENIED (gated or
   * refused), PAYLOAD_TOO_LARGE, DEADLINE_EXCEEDED, UNAVAILABLE (network, 5xx, a broken transfer).
   */
  async download<T extends DigestedFile>(
    ref: HfModelRef,
    file: string,
    sink: (stream: Readable) => Promise<T>,
    options: HubDownloadOptions,
  ): Promise<HubDownload<T> | undefined> {
    const url = hfResolveUrl(this.endpoint, ref, file);
    const signal = AbortSignal.timeout(this.#timeoutMs);
    const hops: { status: number; headers: IncomingHttpHeaders }[] = [];
    let source: SourceStream;
    try {
      source = await openHttpSource(url, {
        allowlist: this.#allowlist,
        maxBytes: options.maxBytes,
        idleTimeoutMs: this.#idleTimeoutMs,
        maxRedirects: this.#maxRedirects,
        proxy: this.#proxy,
        signal,
        bearerTokens: this.#token === undefined ? {} : { [this.#origin]: this.#token },
        onResponse: ({ status, headers }) => hops.push({ status, headers }),
      });
    } catch (error) {
      const last = hops.at(-1);
      if (options.optional === true && last !== undefined && isAbsentFile(last)) return undefined;
      throw this.#describe(error, ref, file, last, signal, options.shownAs);
    }
    const first = hops[0]?.headers ?? {};
    const commit = header(first, 'x-repo-commit')?.toLowerCase();
    const announced = SHA256_ETAG.exec(header(first, 'x-linked-etag') ?? '')?.[1]?.toLowerCase();
    let stored: T;
    try {
      stored = await sink(source.stream);
    } catch (error) {
      throw this.#describe(error, ref, file, undefined, signal, options.shownAs);
    } finally {
      source.stream.destroy();
    }
    const shown = `${options.shownAs ?? formatHfUri(ref)}: ${file}`;
    if (source.declaredBytes !== undefined && stored.bytes !== source.declaredBytes) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        `${shown} ended after ${stored.bytes} of ${source.declaredBytes} bytes`,
      );
    }
    if (announced !== undefined && stored.sha256 !== announced) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        `${shown} arrived with sha256 ${stored.sha256}, but the Hub announced ${announced}`,
      );
    }
    return { stored, commit: commit !== undefined && COMMIT_HASH.test(commit) ? commit : undefined };
  }

  #describe(
    error: unknown,
    ref: HfModelRef,
    file: string,
    last: { status: number; headers: IncomingHttpHeaders } | undefined,
    signal: AbortSignal,
    shownAs: string | undefined,
  ): unknown {
    const repo = shownAs ?? formatHfUri(ref);
    if (last !== undefined && last.status >= 400) {
      const code = header(last.headers, 'x-error-code');
      const tokenHint = this.#token === undefined ? 'set HF_TOKEN' : 'check that HF_TOKEN may read it';
      if (code === 'RepositoryNotFound') {
        return new ModelgateError(
          ErrorCode.NOT_FOUND,
          `${repo}: repository ${ref.repo} was not found at ${this.endpoint} (if it is private or gated, ${tokenHint})`,
        );
      }
      if (code === 'RevisionNotFound') {
        return new ModelgateError(
          ErrorCode.NOT_FOUND,
          `${repo}: revision "${ref.revision}" of ${ref.repo} was not found at ${this.endpoint}`,
        );
      }
      if (code === 'GatedRepo') {
        return new ModelgateError(
          ErrorCode.PERMISSION_DENIED,
          `${repo}: ${ref.repo} is gated; accept its conditions on the Hub with an account, then ${tokenHint}`,
        );
      }
      if (isAbsentFile(last)) {
        return new ModelgateError(
          ErrorCode.NOT_FOUND,
          `${repo}: the repository has no ${file} (HTTP ${last.status} from ${this.endpoint})`,
        );
      }
      if (last.status === 401 || last.status === 403) {
        return new ModelgateError(
          ErrorCode.PERMISSION_DENIED,
          `${repo}: ${file}: the Hub refused access (HTTP ${last.status}); ${tokenHint}`,
        );
      }
    }
    if (isModelgateError(error)) {
      return new ModelgateError(error.code, `${repo}: ${file}: ${error.message}`, error.details, {
        cause: error,
      });
    }
    if (signal.aborted) {
      return new ModelgateError(
        ErrorCode.DEADLINE_EXCEEDED,
        `${repo}: ${file}: the download took longer than ${this.#timeoutMs} ms`,
        {},
        { cause: error },
      );
    }
    const message = error instanceof Error ? error.message : String(error);
    return new ModelgateError(
      ErrorCode.UNAVAILABLE,
      `${repo}: ${file}: the download failed: ${message}`,
      {},
      { cause: error },
    );
  }
}

/** A 404 that means "no such file" (the Hub says EntryNotFound; a plain static server says nothing). */
function isAbsentFile(response: { status: number; headers: IncomingHttpHeaders }): boolean {
  if (response.status !== 404) return false;
  const code = header(response.headers, 'x-error-code');
  return code === undefined || code === 'EntryNotFound';
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
