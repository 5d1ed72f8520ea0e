import { pathToFileURL } from 'node:url';
import { type ArtifactRef, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { ModelStore } from '@modelgate/model-store';
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
    });
    this.#local = new ModelStore({ cacheDir: config.REGISTRY_CACHE_DIR, fileRoots: [artifacts.dir] });
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
