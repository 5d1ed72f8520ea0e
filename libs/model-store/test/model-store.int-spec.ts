import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@modelgate/contracts';
import { ModelStore, type ModelStoreOptions, packBundle } from '@modelgate/model-store';

const sha256Of = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

const MODEL = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
const MODEL_SHA = sha256Of(MODEL);
const BUNDLE = Buffer.from(
  packBundle({
    'tokenizer.json': '{"model":{"type":"WordPiece"}}',
    'tokenizer_config.json': '{"do_lower_case":true}',
    'config.json': '{"model_type":"bert"}',
  }),
);
const BUNDLE_SHA = sha256Of(BUNDLE);

describe('ModelStore against a local HTTP server and file roots', () => {
  let server: Server;
  let port: number;
  let work: string;
  let cacheDir: string;
  let fileRoot: string;
  const hits = new Map<string, number>();
  /** Resolves once the server has sent a /chunked.onnx answer in this test (see /after-chunked.onnx). */
  let chunkedSent: Promise<void>;
  let markChunkedSent: () => void;

  const local = (path: string) => `http://127.0.0.1:${port}${path}`;
  const storeWith = (options: Partial<ModelStoreOptions> = {}) =>
    new ModelStore({
      cacheDir,
      fileRoots: [fileRoot],
      allowHttp: true,
      allowedHosts: ['127.0.0.1'],
      ...options,
    });
  const leftovers = () => (existsSync(join(cacheDir, 'tmp')) ? readdirSync(join(cacheDir, 'tmp')) : []);
  const cachedFiles = () =>
    existsSync(join(cacheDir, 'sha256')) ? readdirSync(join(cacheDir, 'sha256')) : [];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'model-store-int-'));
    fileRoot = join(work, 'models');
    mkdirSync(fileRoot);
    writeFileSync(join(fileRoot, 'model.onnx'), MODEL);

    server = createServer((request, response) => {
      const path = request.url ?? '/';
      hits.set(path, (hits.get(path) ?? 0) + 1);
      if (path === '/model.onnx') {
        response.writeHead(200, { 'content-length': MODEL.length }).end(MODEL);
      } else if (path === '/after-chunked.onnx') {
        // Held until /chunked.onnx has been answered: two transfers of the same bytes overlap.
        void chunkedSent.then(() => response.writeHead(200, { 'content-length': MODEL.length }).end(MODEL));
      } else if (path === '/chunked.onnx') {
        response.on('finish', () => markChunkedSent());
        response.writeHead(200);
        response.write(MODEL.subarray(0, 30_000));
        response.end(MODEL.subarray(30_000));
      } else if (path === '/bundle.tar') {
        response.writeHead(200, { 'content-length': BUNDLE.length }).end(BUNDLE);
      } else if (path === '/not-a-tar') {
        response.writeHead(200).end('not a tar archive');
      } else if (path === '/to-127.0.0.2') {
        response.writeHead(302, { location: `http://127.0.0.2:${port}/model.onnx` }).end();
      } else if (path === '/to-localhost') {
        response.writeHead(301, { location: `http://localhost:${port}/model.onnx` }).end();
      } else if (path === '/to-file') {
        response.writeHead(302, { location: pathToFileURL(join(fileRoot, 'model.onnx')).href }).end();
      } else if (path === '/relative-redirect') {
        response.writeHead(307, { location: '/model.onnx' }).end();
      } else if (path === '/loop') {
        response.writeHead(302, { location: '/loop' }).end();
      } else if (path === '/stall') {
        response.writeHead(200, { 'content-length': MODEL.length });
        response.write(MODEL.subarray(0, 10));
      } else if (path === '/trickle') {
        response.writeHead(200, { 'content-length': MODEL.length });
        const timer = setInterval(() => response.write(MODEL.subarray(0, 1)), 20);
        response.on('close', () => clearInterval(timer));
      } else {
        response.writeHead(404).end('no such artifact');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    rmSync(work, { recursive: true, force: true });
  });

  beforeEach(() => {
    cacheDir = join(work, `cache-${Math.random().toString(36).slice(2)}`);
    hits.clear();
    chunkedSent = new Promise((resolve) => (markChunkedSent = resolve));
  });

  describe('SSRF guard', () => {
    it('refuses a loopback server by default, naming the address and the reason', async () => {
      const store = storeWith({ allowedHosts: [] });
      await expect(
        store.fetchArtifact({ uri: local('/model.onnx'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        message: expect.stringMatching(/resolves to 127\.0\.0\.1, a loopback .*allowedHosts/) as unknown,
      });
      expect(hits.size).toBe(0);
    });

    it('refuses localhost by name, whatever family it resolves to', async () => {
      const store = storeWith({ allowedHosts: [] });
      await expect(
        store.fetchArtifact({ uri: `http://localhost:${port}/model.onnx`, sha256: MODEL_SHA }),
      ).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    });

    it.each([['127.0.0.1'], ['127.0.0.0/8'], ['::ffff:127.0.0.1']])(
      'fetches when %s is allowlisted',
      async (entry) => {
        const result = await storeWith({ allowedHosts: [entry] }).fetchArtifact({
          uri: local('/model.onnx'),
          sha256: MODEL_SHA,
        });
        expect(result).toEqual({
          path: join(cacheDir, 'sha256', MODEL_SHA),
          sha256: MODEL_SHA,
          bytes: MODEL.length,
          cached: false,
        });
        expect(readFileSync(result.path).equals(MODEL)).toBe(true);
      },
    );

    it('fetches from an allowlisted host name, connecting only to what it resolved', async () => {
      const store = storeWith({ allowedHosts: ['localhost'] });
      const result = await store.fetchArtifact({
        uri: `http://localhost:${port}/model.onnx`,
        sha256: MODEL_SHA,
      });
      expect(result.bytes).toBe(MODEL.length);
    });

    it('re-checks every redirect hop: an allowlisted name redirecting to 127.0.0.2 is refused', async () => {
      const store = storeWith({ allowedHosts: ['localhost'] });
      await expect(
        store.fetchArtifact({ uri: `http://localhost:${port}/to-127.0.0.2`, sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.PERMISSION_DENIED,
        message: expect.stringContaining('resolves to 127.0.0.2, a loopback') as unknown,
      });
      expect(hits.get('/model.onnx')).toBeUndefined();
      expect(leftovers()).toEqual([]);
    });

    it('follows redirects that pass the checks, relative ones included', async () => {
      const store = storeWith({ allowedHosts: ['127.0.0.1', 'localhost'] });
      await expect(
        store.fetchArtifact({ uri: local('/to-localhost'), sha256: MODEL_SHA }),
      ).resolves.toMatchObject({
        bytes: MODEL.length,
      });
      rmSync(cacheDir, { recursive: true });
      await expect(
        store.fetchArtifact({ uri: local('/relative-redirect'), sha256: MODEL_SHA }),
      ).resolves.toMatchObject({ bytes: MODEL.length });
    });

    it('stops after 3 redirects and refuses a redirect to file://', async () => {
      const store = storeWith();
      await expect(store.fetchArtifact({ uri: local('/loop'), sha256: MODEL_SHA })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('more than 3 redirects') as unknown,
      });
      expect(hits.get('/loop')).toBe(4);
      await expect(store.fetchArtifact({ uri: local('/to-file'), sha256: MODEL_SHA })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('which is not http(s)') as unknown,
      });
    });
  });

  describe('transfer limits', () => {
    it('refuses a body over maxBytes by its Content-Length', async () => {
      await expect(
        storeWith({ maxBytes: 1000 }).fetchArtifact({ uri: local('/model.onnx'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.PAYLOAD_TOO_LARGE,
        message: expect.stringContaining('Content-Length') as unknown,
      });
      expect(leftovers()).toEqual([]);
    });

    it('refuses a chunked body once the streamed bytes pass maxBytes, leaving no temp file', async () => {
      await expect(
        storeWith({ maxBytes: 40_000 }).fetchArtifact({ uri: local('/chunked.onnx'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({ code: ErrorCode.PAYLOAD_TOO_LARGE });
      expect(leftovers()).toEqual([]);
      expect(cachedFiles()).toEqual([]);
    });

    it('gives up when the server goes silent (idle timeout)', async () => {
      await expect(
        storeWith({ idleTimeoutMs: 200 }).fetchArtifact({ uri: local('/stall'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.DEADLINE_EXCEEDED,
        message: expect.stringContaining('no data for 200 ms') as unknown,
      });
      expect(leftovers()).toEqual([]);
    });

    it('gives up when the whole transfer passes timeoutMs, even while bytes trickle in', async () => {
      await expect(
        storeWith({ timeoutMs: 300 }).fetchArtifact({ uri: local('/trickle'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.DEADLINE_EXCEEDED,
        message: expect.stringContaining('300 ms') as unknown,
      });
      expect(leftovers()).toEqual([]);
    });

    it('reports a non-2xx answer with its status', async () => {
      await expect(
        storeWith().fetchArtifact({ uri: local('/nope'), sha256: MODEL_SHA }),
      ).rejects.toMatchObject({
        code: ErrorCode.NOT_FOUND,
        message: `GET ${local('/nope')} answered HTTP 404 Not Found`,
      });
    });
  });

  describe('verification and caching', () => {
    it('deletes the download and throws on a sha256 mismatch', async () => {
      const wrong = sha256Of('something else');
      await expect(
        storeWith().fetchArtifact({ uri: local('/chunked.onnx'), sha256: wrong }),
      ).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: `sha256 mismatch for ${local('/chunked.onnx')}: expected ${wrong} got ${MODEL_SHA} (${MODEL.length} bytes)`,
      });
      expect(leftovers()).toEqual([]);
      expect(cachedFiles()).toEqual([]);
    });

    it('answers a second call from the cache without touching the source', async () => {
      const store = storeWith();
      const first = await store.fetchArtifact({ uri: local('/model.onnx'), sha256: MODEL_SHA.toUpperCase() });
      const second = await store.fetchArtifact({ uri: local('/model.onnx'), sha256: MODEL_SHA });
      expect(first.cached).toBe(false);
      expect(second).toEqual({ ...first, cached: true });
      expect(hits.get('/model.onnx')).toBe(1);
    });

    it('shares one transfer among concurrent calls for the same digest', async () => {
      const store = storeWith();
      const results = await Promise.all(
        Array.from({ length: 5 }, () =>
          store.fetchArtifact({ uri: local('/model.onnx'), sha256: MODEL_SHA }),
        ),
      );
      expect(new Set(results.map((result) => result.path)).size).toBe(1);
      expect(hits.get('/model.onnx')).toBe(1);
      expect(cachedFiles()).toEqual([MODEL_SHA]);
    });

    it('stays consistent when two stores (two processes) fetch the same artifact at once', async () => {
      const [a, b] = await Promise.all([
        storeWith().fetchArtifact({ uri: local('/after-chunked.onnx'), sha256: MODEL_SHA }),
        storeWith().fetchArtifact({ uri: local('/chunked.onnx'), sha256: MODEL_SHA }),
      ]);
      expect(a.path).toBe(b?.path);
      expect(cachedFiles()).toEqual([MODEL_SHA]);
      expect(leftovers()).toEqual([]);
      expect(readFileSync(a.path).equals(MODEL)).toBe(true);
    });

    it('fetches and verifies a file:// artifact inside the file roots', async () => {
      const uri = pathToFileURL(join(fileRoot, 'model.onnx')).href;
      const store = storeWith({ allowHttp: false });
      await expect(store.fetchArtifact({ uri, sha256: sha256Of('other') })).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('sha256 mismatch') as unknown,
      });
      const result = await store.fetchArtifact({ uri, sha256: MODEL_SHA });
      expect(result).toMatchObject({ bytes: MODEL.length, cached: false });
      expect(readFileSync(result.path).equals(MODEL)).toBe(true);
      expect(leftovers()).toEqual([]);
    });

    it('refuses a file:// artifact outside the roots', async () => {
      const outside = join(work, 'outside.onnx');
      writeFileSync(outside, MODEL);
      await expect(
        storeWith().fetchArtifact({ uri: pathToFileURL(outside).href, sha256: MODEL_SHA }),
      ).rejects.toMatchObject({ code: ErrorCode.PERMISSION_DENIED });
    });
  });

  describe('bundles', () => {
    it('fetches, verifies and extracts a bundle once', async () => {
      const store = storeWith();
      const first = await store.fetchBundle({ uri: local('/bundle.tar'), sha256: BUNDLE_SHA });
      expect(first).toEqual({
        dir: join(cacheDir, 'bundles', BUNDLE_SHA),
        sha256: BUNDLE_SHA,
        cached: false,
      });
      expect(readdirSync(first.dir).sort()).toEqual([
        'config.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ]);
      expect(readFileSync(join(first.dir, 'config.json'), 'utf8')).toBe('{"model_type":"bert"}');
      await expect(
        store.fetchBundle({ uri: local('/bundle.tar'), sha256: BUNDLE_SHA }),
      ).resolves.toMatchObject({
        cached: true,
      });
      expect(hits.get('/bundle.tar')).toBe(1);
      expect(leftovers()).toEqual([]);
    });

    it('extracts concurrent fetches of one bundle into one directory', async () => {
      const results = await Promise.all([
        storeWith().fetchBundle({ uri: local('/bundle.tar'), sha256: BUNDLE_SHA }),
        storeWith().fetchBundle({ uri: local('/bundle.tar'), sha256: BUNDLE_SHA }),
      ]);
      expect(results[0]?.dir).toBe(results[1]?.dir);
      expect(readdirSync(join(cacheDir, 'bundles'))).toEqual([BUNDLE_SHA]);
      expect(leftovers()).toEqual([]);
    });

    it('refuses a verified artifact that is not a ustar bundle, extracting nothing', async () => {
      await expect(
        storeWith().fetchBundle({ uri: local('/not-a-tar'), sha256: sha256Of('not a tar archive') }),
      ).rejects.toMatchObject({
        code: ErrorCode.INVALID_ARGUMENT,
        message: expect.stringContaining('truncated') as unknown,
      });
      expect(existsSync(join(cacheDir, 'bundles'))).toBe(false);
    });
  });
});
