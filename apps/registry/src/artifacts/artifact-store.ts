import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { lstat, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';

/** A stored artifact: its digest, size and where it lies. */
export interface StoredArtifact {
  sha256: string;
  bytes: number;
  path: string;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * The registry's content-addressed store of uploaded artifacts, `<dir>/sha256/<hex>`. A file
 * appears under its digest only once fully written and hashed (temp file + rename), so a path
 * that exists always holds exactly the bytes its name says.
 */
export class ArtifactStore {
  readonly dir: string;
  readonly #publicPrefix: string;

  /** `publicUrl` is REGISTRY_PUBLIC_URL: artifact URIs are `<publicUrl>/v1/artifacts/<sha256>`. */
  constructor(dir: string, publicUrl: string) {
    this.dir = resolve(dir);
    this.#publicPrefix = `${publicUrl}/v1/artifacts/`;
  }

  /** The URI workers and gateways fetch an uploaded artifact at. */
  uriOf(sha256: string): string {
    return `${this.#publicPrefix}${sha256}`;
  }

  /** The digest an artifact URI of this registry names, or undefined for any other URI. */
  digestOfOwnUri(uri: string): string | undefined {
    if (!uri.startsWith(this.#publicPrefix)) return undefined;
    const digest = uri.slice(this.#publicPrefix.length).toLowerCase();
    return SHA256_HEX.test(digest) ? digest : undefined;
  }

  /** Path of the artifact with `sha256` (which may not exist). */
  pathOf(sha256: string): string {
    if (!SHA256_HEX.test(sha256)) {
      throw new ModelgateError(ErrorCode.INVALID_ARGUMENT, 'sha256 must be 64 lowercase hex digits', {
        field: 'sha256',
      });
    }
    return join(this.dir, 'sha256', sha256);
  }

  /** The stored artifact with `sha256`, or undefined. */
  async find(sha256: string): Promise<StoredArtifact | undefined> {
    const path = this.pathOf(sha256);
    const info = await lstat(path).catch(() => undefined);
    return info?.isFile() ? { sha256, bytes: info.size, path } : undefined;
  }

  /** Streams `source` into the store, hashing on the way; fails with PAYLOAD_TOO_LARGE past `maxBytes`. */
  async write(source: Readable, maxBytes: number, what: string): Promise<StoredArtifact> {
    const tmpDir = join(this.dir, 'tmp');
    await Promise.all([
      mkdir(tmpDir, { recursive: true }),
      mkdir(join(this.dir, 'sha256'), { recursive: true }),
    ]);
    const tempPath = join(tmpDir, `${randomUUID()}.part`);
    const hash = createHash('sha256');
    let bytes = 0;
    const meter = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        bytes += chunk.length;
        if (bytes > maxBytes) {
          callback(
            new ModelgateError(ErrorCode.PAYLOAD_TOO_LARGE, `${what} is over the limit of ${maxBytes} bytes`),
          );
          return;
        }
        hash.update(chunk);
        callback(null, chunk);
      },
    });
    try {
      await pipeline(source, meter, createWriteStream(tempPath, { flags: 'wx', flush: true }));
      return await this.#publish(tempPath, hash.digest('hex'), bytes);
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  /** Stores bytes already in memory (the tokenizer bundle). */
  async writeBytes(data: Uint8Array): Promise<StoredArtifact> {
    const tmpDir = join(this.dir, 'tmp');
    await Promise.all([
      mkdir(tmpDir, { recursive: true }),
      mkdir(join(this.dir, 'sha256'), { recursive: true }),
    ]);
    const tempPath = join(tmpDir, `${randomUUID()}.part`);
    try {
      await writeFile(tempPath, data, { flag: 'wx', flush: true });
      return await this.#publish(tempPath, createHash('sha256').update(data).digest('hex'), data.length);
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  async #publish(tempPath: string, sha256: string, bytes: number): Promise<StoredArtifact> {
    const path = this.pathOf(sha256);
    // Same bytes under the same name: renaming over an existing copy is harmless and atomic.
    await rename(tempPath, path);
    return { sha256, bytes, path };
  }
}
