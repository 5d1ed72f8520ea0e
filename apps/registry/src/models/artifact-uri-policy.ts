import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { type ArtifactRef, ErrorCode, isModelgateError, ModelgateError } from '@modelgate/contracts';
import {
  type HostAllowlist,
  isForbiddenAddress,
  parseHostAllowlist,
  parseS3Uri,
  redactUri,
  resolveFileUri,
} from '@modelgate/model-store';
import { type ArtifactStore } from '../artifacts/artifact-store.js';

/** Options of the registration-time URI checks (the registry's own fetch settings). */
export interface ArtifactUriPolicyOptions {
  fileRoots: readonly string[];
  allowHttp: boolean;
  allowedHosts: readonly string[];
  /** Base URL of the Hugging Face Hub that hf:// sources are imported from (HF_ENDPOINT). */
  hfEndpoint: string;
  /** How long a DNS lookup of an http(s) host may take before the check leaves it to preparation. */
  dnsTimeoutMs?: number;
}

/**
 * Cheap checks of an artifact URI at registration, so that a URI preparation would refuse is a
 * 400 at once: the registry's own upload URIs must name a stored artifact; `file://` must lie
 * inside REGISTRY_ARTIFACT_ROOTS (no `..`, no symlink escape) and exist; `http(s)://` must be
 * enabled and its host must not be (or resolve to) a loopback, private, link-local or metadata
 * address unless allowlisted; `s3://` must name a bucket and a key. Preparation checks everything
 * again when it fetches.
 */
export class ArtifactUriPolicy {
  readonly #allowlist: HostAllowlist;

  constructor(
    private readonly options: ArtifactUriPolicyOptions,
    private readonly store: ArtifactStore,
  ) {
    this.#allowlist = parseHostAllowlist(options.allowedHosts);
  }

  /**
   * Throws INVALID_ARGUMENT (field `source`) when the Hub an hf:// source would be imported from
   * is a loopback, private, link-local or metadata address that is not allowlisted. The URI itself
   * was parsed by the registration schema.
   */
  async checkSource(): Promise<void> {
    const endpoint = new URL(this.options.hfEndpoint);
    await this.#checkHost(endpoint, 'source', `the Hub endpoint ${redactUri(endpoint.href)} (HF_ENDPOINT)`);
  }

  /** Throws INVALID_ARGUMENT (field `<field>.uri`) saying why `ref` cannot be fetched. */
  async check(ref: ArtifactRef, field: string): Promise<void> {
    const own = this.store.digestOfOwnUri(ref.uri);
    if (own !== undefined) {
      if (own !== ref.sha256) {
        throw refuse(field, `${ref.uri} names artifact ${own}, but sha256 says ${ref.sha256}`);
      }
      if ((await this.store.find(own)) === undefined) {
        throw refuse(field, `no uploaded artifact with sha256 ${own} in this registry`);
      }
      return;
    }
    const url = new URL(ref.uri);
    switch (url.protocol) {
      case 'file:':
        return this.#checkFile(ref.uri, field);
      case 'http:':
      case 'https:':
        return this.#checkHttp(url, field);
      case 's3:':
        return checkS3(ref.uri, field);
      default:
        throw refuse(
          field,
          `${url.protocol}// artifact URIs are not supported (use file://, http(s):// or s3://)`,
        );
    }
  }

  async #checkFile(uri: string, field: string): Promise<void> {
    try {
      await resolveFileUri(uri, this.options.fileRoots);
    } catch (error) {
      if (!isModelgateError(error)) throw error;
      const hint =
        error.code === ErrorCode.PERMISSION_DENIED ? ' (allow a directory with REGISTRY_ARTIFACT_ROOTS)' : '';
      throw refuse(field, `${error.message}${hint}`);
    }
  }

  async #checkHttp(url: URL, field: string): Promise<void> {
    const shown = redactUri(url.href);
    if (!this.options.allowHttp) {
      throw refuse(
        field,
        `${shown}: http(s) artifact URIs are disabled (REGISTRY_ALLOW_HTTP_ARTIFACTS=false)`,
      );
    }
    await this.#checkHost(url, `${field}.uri`, shown);
  }

  /** Refuses a host that is (or resolves to) a forbidden address, unless allowlisted. */
  async #checkHost(url: URL, path: string, shown: string): Promise<void> {
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (this.#allowlist.allowsHost(host)) return;
    const addresses = isIP(host) ? [host] : await this.#resolve(host);
    for (const address of addresses) {
      const reason = isForbiddenAddress(address);
      if (reason !== undefined && !this.#allowlist.allowsAddress(address)) {
        throw refuseAt(
          path,
          `${shown} resolves to ${address}, a ${reason} address (allowlist it with REGISTRY_ARTIFACT_ALLOWED_HOSTS)`,
        );
      }
    }
  }

  /** The host's addresses; none when DNS fails or is slow (preparation reports that). */
  async #resolve(host: string): Promise<string[]> {
    const timeout = new Promise<string[]>((resolve) => {
      setTimeout(() => resolve([]), this.options.dnsTimeoutMs ?? 2000).unref();
    });
    const answer = lookup(host, { all: true, verbatim: true })
      .then((entries) => entries.map((entry) => entry.address))
      .catch(() => []);
    return Promise.race([answer, timeout]);
  }
}

function refuse(field: string, message: string): ModelgateError {
  return refuseAt(`${field}.uri`, message);
}

function refuseAt(path: string, message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${path}: ${message}`, { field: path });
}

/** An s3:// URI must name a bucket and a key; whether the object exists is preparation's to find. */
function checkS3(uri: string, field: string): void {
  try {
    parseS3Uri(uri);
  } catch (error) {
    if (!isModelgateError(error)) throw error;
    throw refuse(field, error.message);
  }
}
