// A local HTTP server laid out like the Hugging Face Hub, for tests of hf:// imports: files at
// /<org>/<name>/resolve/<revision>/<path>, answered the way the Hub answers. Large files (ONNX
// graphs and their external data) are LFS files there: the resolve URL answers 302 to a CDN on
// another origin, with X-Repo-Commit and X-Linked-Etag (the file's SHA-256); small files answer
// 200 at once. Missing repositories answer 401 RepositoryNotFound, missing revisions 404
// RevisionNotFound, missing files 404 EntryNotFound.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join, relative, sep } from 'node:path';

/** One repository of the test Hub. */
export interface HubRepo {
  /** Files by path in the repository (`onnx/model.onnx`, `tokenizer.json`). */
  files: Record<string, Uint8Array>;
  /** Branches and tags besides `main`, each naming the repository's one commit. @defaultValue [] */
  refs?: string[];
  /** Answer 401 GatedRepo unless the request carries the server's token. @defaultValue false */
  gated?: boolean;
}

/** A request the Hub or its CDN received. */
export interface HubRequest {
  server: 'hub' | 'cdn';
  path: string;
  authorization: string | undefined;
}

/** A running test Hub. */
export interface HubServer {
  /** The HF_ENDPOINT to use, `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Origin of the CDN large files redirect to. */
  cdnOrigin: string;
  /** Every request so far, in order. */
  requests: HubRequest[];
  /** The commit hash every revision of `repo` resolves to. */
  commitOf(repo: string): string;
  close(): Promise<void>;
}

/** Files whose names end so are LFS files on the Hub (redirected to the CDN). */
const LFS_SUFFIXES = ['.onnx', '.onnx_data', '.onnx.data', '.bin', '.safetensors'];

/** Reads every regular file under `dir` (dot files left out) into a HubRepo's `files`. */
export async function hubFilesFromDirectory(dir: string): Promise<Record<string, Uint8Array>> {
  const files: Record<string, Uint8Array> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path).split(sep).join('/')] = await readFile(path);
  }
  return files;
}

/** Options of the test Hub. */
export interface HubServerOptions {
  /** What gated repositories want as `Authorization: Bearer <token>`. */
  token?: string;
  /** Called with every Hub request before it is answered; the answer waits for it (hold a download). */
  beforeAnswer?: (request: HubRequest) => Promise<void>;
}

/** Starts the Hub and its CDN on free ports of 127.0.0.1. */
export async function startHubServer(
  repos: Record<string, HubRepo>,
  options: HubServerOptions = {},
): Promise<HubServer> {
  const requests: HubRequest[] = [];
  const commitOf = (repo: string): string => createHash('sha1').update(`commit of ${repo}`).digest('hex');
  const blobs = new Map<string, Uint8Array>();
  const sha256 = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');
  for (const repo of Object.values(repos)) {
    for (const data of Object.values(repo.files)) blobs.set(sha256(data), data);
  }

  const cdn = await listen((request, response) => {
    requests.push({ server: 'cdn', path: request.url ?? '/', authorization: request.headers.authorization });
    const blob = blobs.get((request.url ?? '').replace(/^\/blobs\//, ''));
    if (blob === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': blob.length });
    response.end(blob);
  });
  const cdnOrigin = `http://127.0.0.1:${(cdn.address() as AddressInfo).port}`;

  const hub = await listen((request, response) => {
    const seen: HubRequest = {
      server: 'hub',
      path: request.url ?? '/',
      authorization: request.headers.authorization,
    };
    requests.push(seen);
    void (options.beforeAnswer?.(seen) ?? Promise.resolve()).then(() => answer(request, response));
  });

  const answer = (request: IncomingMessage, response: ServerResponse): void => {
    const url = request.url ?? '/';
    const match = /^\/([^/]+)\/([^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.split('?')[0] ?? '');
    if (match === null) return answerError(response, 404, 'EntryNotFound', 'not a resolve URL');
    const [, org = '', name = '', rawRevision = '', rawPath = ''] = match;
    const repoId = `${org}/${name}`;
    const repo = repos[repoId];
    if (repo === undefined) {
      return answerError(response, 401, 'RepositoryNotFound', `Repository Not Found for url: ${url}.`);
    }
    if (repo.gated === true && request.headers.authorization !== `Bearer ${options.token ?? ''}`) {
      return answerError(response, 401, 'GatedRepo', `Access to model ${repoId} is restricted.`);
    }
    const revision = decodeURIComponent(rawRevision);
    const commit = commitOf(repoId);
    if (revision !== commit && revision !== 'main' && !(repo.refs ?? []).includes(revision)) {
      return answerError(response, 404, 'RevisionNotFound', `Invalid rev id: ${revision}`);
    }
    const path = rawPath.split('/').map(decodeURIComponent).join('/');
    const data = repo.files[path];
    if (data === undefined) return answerError(response, 404, 'EntryNotFound', `${path} does not exist`);
    const digest = sha256(data);
    if (LFS_SUFFIXES.some((suffix) => path.endsWith(suffix))) {
      response.writeHead(302, {
        location: `${cdnOrigin}/blobs/${digest}`,
        'x-repo-commit': commit,
        'x-linked-etag': `"${digest}"`,
        'x-linked-size': String(data.length),
      });
      response.end();
      return;
    }
    response.writeHead(200, {
      'content-type': 'application/octet-stream',
      'content-length': data.length,
      'x-repo-commit': commit,
      etag: `"${createHash('sha1').update(data).digest('hex')}"`,
    });
    response.end(data);
  };

  return {
    endpoint: `http://127.0.0.1:${(hub.address() as AddressInfo).port}`,
    cdnOrigin,
    requests,
    commitOf,
    async close() {
      await Promise.all([hub, cdn].map(close));
    },
  };
}

function answerError(response: ServerResponse, status: number, code: string, message: string): void {
  response
    .writeHead(status, {
      'content-type': 'application/json',
      'x-error-code': code,
      'x-error-message': message,
    })
    .end(JSON.stringify({ error: message }));
}

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}
