import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type ArtifactRef, ErrorCode, type ExternalDataRef, ModelgateError } from '@modelgate/contracts';
import { linkModelDirectory, ModelStore, readProxySettings } from '@modelgate/model-store';
import { type ArtifactStore } from '../artifacts/artifact-store.js';
import { type RegistryConfig } from '../registry.config.js';
import { type ArtifactFetcher } from './prepare-model.js';

/**
 * Fetches what preparation needs. URIs of this registry's own uploads are read from the artifact
 * store directly (they were hashed on the way in), never over HTTP from itself; every other URI
 * goes through a ModelStore with the registry's roots, SSRF guard, size limit and timeout.
 */
export class PreparationFetcher implements ArtifactFetcher {
  readonly #remote: ModelStore;
  readonly #local: ModelStore;
  readonly #cacheDir: string;

  constructor(
    config: RegistryConfig,
    private readonly artifacts: ArtifactStore,
  ) {
    this.#remote = new ModelStore({
      cacheDir: config.REGISTRY_CACHE_DIR,
      fileRoots: config.REGISTRY_ARTIFACT_ROOTS,
      allowHttp: config.REGISTRY_ALLOW_HTTP_ARTIFACTS,
      allowedHosts: config.REGISTRY_ARTIFACT_ALLOWED_HOSTS,
      maxBytes: config.REGISTRY_ARTIFACT_MAX_BYTES,
      timeoutMs: config.REGISTRY_ARTIFACT_FETCH_TIMEOUT_MS,
      s3: { endpointUrl: config.S3_ENDPOINT_URL },
      proxy: readProxySettings(config),
    });
    this.#local = new ModelStore({ cacheDir: config.REGISTRY_CACHE_DIR, fileRoots: [artifacts.dir] });
    this.#cacheDir = config.REGISTRY_CACHE_DIR;
  }

  /**
   * The model file's path; with external data, a directory of links to the verified files under
   * the names the graph records (own uploads linked straight from the artifact store, no copy).
   */
  async fetchModel(files: {
    artifact: ArtifactRef;
    externalData: readonly ExternalDataRef[];
  }): Promise<{ path: string }> {
    const model = {
      ...(await this.fetchArtifact(files.artifact)),
      sha256: files.artifact.sha256.toLowerCase(),
    };
    if (files.externalData.length === 0) return model;
    const externalData = [];
    for (const file of files.externalData) {
      const fetched = await this.fetchArtifact(file);
      externalData.push({ name: file.name, path: fetched.path, sha256: file.sha256.toLowerCase() });
    }
    const path = await linkModelDirectory(
      join(this.#cacheDir, 'models'),
      join(this.#cacheDir, 'tmp'),
      model,
      externalData,
    );
    return { path };
  }

  async fetchArtifact(ref: ArtifactRef): Promise<{ path: string }> {
    const own = this.#ownDigest(ref);
    if (own === undefined) return this.#remote.fetchArtifact(ref);
    const stored = await this.artifacts.find(own);
    if (stored === undefined) {
      throw new ModelgateError(
        ErrorCode.NOT_FOUND,
        `no uploaded artifact with sha256 ${own} in this registry`,
      );
    }
    return stored;
  }

  async fetchBundle(ref: ArtifactRef): Promise<{ dir: string }> {
    const own = this.#ownDigest(ref);
    if (own === undefined) return this.#remote.fetchBundle(ref);
    return this.#local.fetchBundle({ uri: pathToFileURL(this.artifacts.pathOf(own)).href, sha256: own });
  }

  #ownDigest(ref: ArtifactRef): string | undefined {
    const digest = this.artifacts.digestOfOwnUri(ref.uri);
    if (digest !== undefined && digest !== ref.sha256.toLowerCase()) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `sha256 mismatch for ${ref.uri}: expected ${ref.sha256} got ${digest}`,
      );
    }
    return digest;
  }
}
