import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { type ArtifactRef, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type HostAllowlist, parseHostAllowlist } from './address-policy.js';
import { extractBundle, isDirectory } from './bundle-extract.js';
import { openFileSource, type SourceStream } from './file-source.js';
import { openHttpSource } from './http-source.js';
import { type ProxySettings } from './outbound-proxy.js';
import { ENCODER_FILE_NAME, linkModelDirectory } from './model-directory.js';
import { type S3Options, createS3Client, openS3Source, parseS3Uri } from './s3-source.js';
import { type S3Client } from '@aws-sdk/client-s3';
import { redactUri } from './redact-uri.js';
import { noSpaceFailure } from './cache-space.js';
import { describeFailure, digestMeter, normalizeSha256 } from './transfer-checks.js';
import {
  type FetchedArtifact,
  type FetchedBundle,
  type FetchedModel,
  type ModelFiles,
} from './fetched-files.js';

/** Where a model store keeps artifacts and where it may fetch them from. */
export interface ModelStoreOptions {
  /** Cache directory: `sha256/<hex>` artifacts, `bundles/<hex>/` extracted bundles, `models/<key>/` models with external data, `tmp/` partial downloads. */
  cacheDir: string;
  /** Directories `file://` URIs may point into, judged after symlinks are resolved; empty disables file://. */
  fileRoots: readonly string[];
  /** Whether `http://` and `https://` URIs may be fetched. @defaultValue false */
  allowHttp?: boolean;
  /** Host names, IP addresses or CIDR blocks fetched even though loopback, private or link-local. @defaultValue [] */
  allowedHosts?: readonly string[];
  /** Largest artifact accepted, in bytes. @defaultValue 4 GiB (4294967296) */
  maxBytes?: number;
  /** Largest bundle `fetchBundle` accepts, in bytes (it is read into memory to unpack). @defaultValue 256 MiB */
  maxBundleBytes?: number;
  /** Deadline for one whole fetch (DNS, connect, redirects and transfer), in ms. @defaultValue 300000 (5 min) */
  timeoutMs?: number;
  /** Longest silence allowed while connecting or between received bytes, in ms. @defaultValue 30000 */
  idleTimeoutMs?: number;
  /** Most HTTP redirects followed, each re-checked like the first request. @defaultValue 3 */
  maxRedirects?: number;
  /** Bearer tokens by origin, e.g. the registry's for its `/v1/artifacts`. @defaultValue {} */
  bearerTokens?: Readonly<Record<string, string>>;
  /** How `s3://` URIs are fetched (credentials: the AWS SDK's standard chain). @defaultValue AWS S3 */
  s3?: S3Options;
  /** Forward proxies of http(s) and s3 fetches (readProxySettings of HTTPS_PROXY, HTTP_PROXY, NO_PROXY). @defaultValue none */
  proxy?: ProxySettings | undefined;
}

/** An artifact to fetch: where it is and the sha256 (hex) its bytes must have. */
export type { ArtifactRef };

export type { FetchedArtifact, FetchedBundle, FetchedModel, ModelFiles } from './fetched-files.js';

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

/**
 * A content-addressed, sha256-verified cache of model artifacts fetched from `file://` (inside
 * configured roots), `http(s)://` (SSRF-guarded) and `s3://bucket/key` (AWS SDK v3). A file is in the cache only if its digest
 * matched when it was written, so a cache hit returns at once without touching the source.
 */
export class ModelStore {
  readonly #cacheDir: string;
  readonly #fileRoots: readonly string[];
  readonly #allowHttp: boolean;
  readonly #allowlist: HostAllowlist;
  readonly #maxBytes: number;
  readonly #maxBundleBytes: number;
  readonly #timeoutMs: number;
  readonly #idleTimeoutMs: number;
  readonly #maxRedirects: number;
  readonly #bearerTokens: Readonly<Record<string, string>>;
  readonly #s3Options: S3Options;
  readonly #proxy: ProxySettings | undefined;
  #s3Client: S3Client | undefined;
  /** One transfer per digest in this process; concurrent callers share it. */
  readonly #artifactsInFlight = new Map<string, Promise<FetchedArtifact>>();
  readonly #bundlesInFlight = new Map<string, Promise<FetchedBundle>>();

  constructor(options: ModelStoreOptions) {
    this.#cacheDir = resolve(options.cacheDir);
    this.#fileRoots = [...options.fileRoots];
    this.#allowHttp = options.allowHttp ?? false;
    this.#allowlist = parseHostAllowlist(options.allowedHosts ?? []);
    this.#maxBytes = positive('maxBytes', options.maxBytes ?? 4 * GIB);
    this.#maxBundleBytes = positive('maxBundleBytes', options.maxBundleBytes ?? 256 * MIB);
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs ?? 5 * 60_000);
    this.#idleTimeoutMs = positive('idleTimeoutMs', options.idleTimeoutMs ?? 30_000);
    this.#maxRedirects = options.maxRedirects ?? 3;
    this.#bearerTokens = options.bearerTokens ?? {};
    this.#s3Options = options.s3 ?? {};
    this.#proxy = options.proxy;
    if (!Number.isInteger(this.#maxRedirects) || this.#maxRedirects < 0) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `maxRedirects must be a whole number >= 0`);
    }
  }

  /**
   * The path of the verified artifact `ref` names, fetching and verifying it first unless it is
   * cached. Throws ModelgateError: INVALID_ARGUMENT (bad URI or digest, sha256 mismatch),
   * PERMISSION_DENIED (URI not allowed), NOT_FOUND, PAYLOAD_TOO_LARGE, DEADLINE_EXCEEDED, UNAVAILABLE
   * (a full cache among them: "no space left on device in the artifact cache …", `isNoSpaceError`).
   */
  async fetchArtifact(ref: ArtifactRef): Promise<FetchedArtifact> {
    return this.#fetchArtifact(ref, this.#maxBytes);
  }

  /**
   * Fetches and verifies a model file, its external data files and its encoder (image-to-text),
   * and returns paths onnxruntime can open: with external data or an encoder, the files are linked
   * into a directory of their own, external data under the names the graph records and the encoder
   * as `encoder_model.onnx` (see `linkModelDirectory`). Errors as `fetchArtifact`.
   */
  async fetchModel(files: ModelFiles): Promise<FetchedModel> {
    const model = await this.fetchArtifact(files.artifact);
    const externalData = files.externalData ?? [];
    const encoder = files.encoder === undefined ? undefined : await this.fetchArtifact(files.encoder);
    if (externalData.length === 0 && encoder === undefined) return { path: model.path, cached: model.cached };
    const fetched = [];
    // One at a time: external data files are the big ones.
    for (const file of externalData) fetched.push({ ...(await this.fetchArtifact(file)), name: file.name });
    const path = await linkModelDirectory(
      join(this.#cacheDir, 'models'),
      join(this.#cacheDir, 'tmp'),
      model,
      fetched,
      encoder,
    ).catch(async (error: unknown) => {
      const subject = `the model directory of ${redactUri(files.artifact.uri)}`;
      throw (await noSpaceFailure(error, this.#cacheDir, subject)) ?? error;
    });
    const cached = model.cached && (encoder?.cached ?? true) && fetched.every((file) => file.cached);
    if (encoder === undefined) return { path, cached };
    return { path, encoderPath: join(dirname(path), ENCODER_FILE_NAME), cached };
  }

  /**
   * Fetches a ustar bundle (see `packBundle`), verifies it like an artifact and extracts it
   * atomically into `<cacheDir>/bundles/<hex>/`. Entries other than plain files with safe
   * relative names are refused (INVALID_ARGUMENT).
   */
  async fetchBundle(ref: ArtifactRef): Promise<FetchedBundle> {
    const sha256 = normalizeSha256(ref.sha256);
    this.#checkScheme(ref.uri);
    return shareInFlight(this.#bundlesInFlight, sha256, () => this.#fetchBundleOnce(ref, sha256));
  }

  async #fetchArtifact(ref: ArtifactRef, limit: number): Promise<FetchedArtifact> {
    const sha256 = normalizeSha256(ref.sha256);
    const scheme = this.#checkScheme(ref.uri);
    return shareInFlight(this.#artifactsInFlight, sha256, () =>
      this.#fetchArtifactOnce(ref.uri, scheme, sha256, limit),
    );
  }

  async #fetchArtifactOnce(
    uri: string,
    scheme: Scheme,
    sha256: string,
    limit: number,
  ): Promise<FetchedArtifact> {
    const path = join(this.#cacheDir, 'sha256', sha256);
    const cachedBytes = await regularFileSize(path);
    if (cachedBytes !== undefined) return { path, sha256, bytes: cachedBytes, cached: true };

    const tmpDir = join(this.#cacheDir, 'tmp');
    await Promise.all([mkdir(dirname(path), { recursive: true }), mkdir(tmpDir, { recursive: true })]);
    const tempPath = join(tmpDir, `${sha256}.${randomUUID()}.part`);
    const signal = AbortSignal.timeout(this.#timeoutMs);
    let source: SourceStream | undefined;
    let renamed = false;
    try {
      source =
        scheme === 'file'
          ? await openFileSource(uri, this.#fileRoots, limit)
          : scheme === 's3'
            ? await openS3Source(
                uri,
                (this.#s3Client ??= createS3Client(this.#s3Options, this.#proxy)),
                limit,
                signal,
              )
            : await openHttpSource(uri, {
                allowlist: this.#allowlist,
                maxBytes: limit,
                idleTimeoutMs: this.#idleTimeoutMs,
                proxy: this.#proxy,
                maxRedirects: this.#maxRedirects,
                signal,
                bearerTokens: this.#bearerTokens,
              });
      const { meter, result } = digestMeter(limit, uri);
      // flush: fsync before close, so the rename below never publishes data still in the page cache.
      const sink = createWriteStream(tempPath, { flags: 'wx', mode: 0o644, flush: true });
      await pipeline(source.stream, meter, sink, { signal });
      const { digest, bytes } = result();
      if (source.declaredBytes !== undefined && bytes !== source.declaredBytes) {
        throw new ModelgateError(
          ErrorCode.UNAVAILABLE,
          `${redactUri(uri)} ended after ${bytes} of ${source.declaredBytes} bytes`,
        );
      }
      if (digest !== sha256) {
        throw new ModelgateError(
          ErrorCode.INVALID_ARGUMENT,
          `sha256 mismatch for ${redactUri(uri)}: expected ${sha256} got ${digest} (${bytes} bytes)`,
          { field: 'sha256' },
        );
      }
      // Same-directory rename is atomic: readers see no file or the whole verified file. A
      // concurrent process renaming identical bytes over it is harmless.
      await rename(tempPath, path);
      renamed = true;
      return { path, sha256, bytes, cached: false };
    } catch (error) {
      // Removed before anything is reported: no half-written file stays, and the free space
      // a full cache reports is what is left without it.
      source?.stream.destroy();
      await rm(tempPath, { force: true });
      const noSpace = await noSpaceFailure(error, this.#cacheDir, redactUri(uri), source?.declaredBytes);
      throw noSpace ?? describeFailure(error, uri, signal, this.#timeoutMs);
    } finally {
      source?.stream.destroy();
      if (!renamed) await rm(tempPath, { force: true });
    }
  }

  async #fetchBundleOnce(ref: ArtifactRef, sha256: string): Promise<FetchedBundle> {
    const dir = join(this.#cacheDir, 'bundles', sha256);
    if (await isDirectory(dir)) return { dir, sha256, cached: true };

    const artifact = await this.#fetchArtifact(ref, Math.min(this.#maxBytes, this.#maxBundleBytes));
    if (artifact.bytes > this.#maxBundleBytes) {
      throw new ModelgateError(
        ErrorCode.PAYLOAD_TOO_LARGE,
        `bundle ${redactUri(ref.uri)} is ${artifact.bytes} bytes, over the limit of ${this.#maxBundleBytes} bytes`,
      );
    }
    try {
      await extractBundle(await readFile(artifact.path), dir, join(this.#cacheDir, 'tmp'));
    } catch (error) {
      throw (
        (await noSpaceFailure(error, this.#cacheDir, `the files of bundle ${redactUri(ref.uri)}`)) ?? error
      );
    }
    return { dir, sha256, cached: false };
  }

  /** Cheap checks that hold on a cache hit too: a URI this store would never fetch is refused. */
  #checkScheme(uri: string): Scheme {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${redactUri(uri)} is not a valid URI`, {
        field: 'uri',
      });
    }
    if (url.protocol === 'file:') return 'file';
    if (url.protocol === 's3:') {
      parseS3Uri(uri);
      return 's3';
    }
    if (url.protocol === 'http:' || url.protocol === 'https:') {
      if (!this.#allowHttp) {
        throw new ModelgateError(
          ErrorCode.PERMISSION_DENIED,
          `${redactUri(uri)}: http(s) artifact URIs are disabled here (allowHttp is false)`,
        );
      }
      return 'http';
    }
    throw new ModelgateError(
      ErrorCode.INVALID_ARGUMENT,
      `unsupported scheme "${url.protocol.replace(/:$/, '')}" in ${redactUri(uri)} (supported: file, http, https, s3)`,
      { field: 'uri' },
    );
  }
}

type Scheme = 'file' | 'http' | 's3';

function shareInFlight<T>(
  inFlight: Map<string, Promise<T>>,
  key: string,
  start: () => Promise<T>,
): Promise<T> {
  const existing = inFlight.get(key);
  if (existing) return existing;
  const promise = start().finally(() => inFlight.delete(key));
  inFlight.set(key, promise);
  return promise;
}

async function regularFileSize(path: string): Promise<number | undefined> {
  const info = await lstat(path).catch(() => undefined);
  return info?.isFile() ? info.size : undefined;
}

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0) {
    throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, `${name} must be a positive number, got ${value}`);
  }
  return value;
}
