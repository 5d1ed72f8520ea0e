// Outbound fetches through a real forward proxy (tinyproxy, Debian's package): http artifacts and
// s3:// objects (an S3-protocol server, s3rver) go through CONNECT tunnels when HTTP_PROXY
// applies, straight to the server when NO_PROXY names it, and a proxy that cannot be reached is a
// clear UNAVAILABLE naming it. The proxy's own log says which tunnels it opened.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { ErrorCode } from '@modelgate/contracts';
import { ModelStore, type ProxySettings, readProxySettings } from '@modelgate/model-store';
import { freePort, waitFor } from '@modelgate/testing';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BYTES = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 31) % 256));
const SHA = createHash('sha256').update(BYTES).digest('hex');

describe('ModelStore through HTTP_PROXY / NO_PROXY (tinyproxy)', () => {
  let work: string;
  let proxy: ChildProcess;
  let proxyUrl: string;
  let logFile: string;
  let origin: Server;
  let originUrl: string;
  let s3: S3rver;
  let s3Url: string;
  const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  /** The CONNECT requests the proxy logged so far. */
  const tunnels = (): string[] =>
    [...readFileSync(logFile, 'utf8').matchAll(/CONNECT (\S+)/g)].map(([, target]) => target ?? '');

  const store = (settings: ProxySettings, s3EndpointUrl?: string) =>
    new ModelStore({
      cacheDir: mkdtempSync(join(work, 'cache-')),
      fileRoots: [],
      allowHttp: true,
      allowedHosts: ['127.0.0.1'],
      idleTimeoutMs: 5_000,
      proxy: settings,
      ...(s3EndpointUrl === undefined ? {} : { s3: { endpointUrl: s3EndpointUrl } }),
    });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'model-store-proxy-'));
    const port = await freePort();
    logFile = join(work, 'tinyproxy.log');
    writeFileSync(logFile, '');
    // No ConnectPort line: tunnels to any port are allowed (the origin and s3rver are not on 443).
    writeFileSync(
      join(work, 'tinyproxy.conf'),
      [
        `Port ${port}`,
        'Listen 127.0.0.1',
        'Timeout 30',
        `LogFile "${logFile}"`,
        'LogLevel Info',
        'MaxClients 20',
        'Allow 127.0.0.1',
        '',
      ].join('\n'),
    );
    proxy = spawn('tinyproxy', ['-d', '-c', join(work, 'tinyproxy.conf')], { stdio: 'ignore' });
    proxyUrl = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(proxyUrl).catch(() => undefined)) !== undefined, {
      timeoutMs: 10_000,
    });
    origin = createServer((_request, response) => {
      response.writeHead(200, { 'content-length': String(BYTES.length) });
      response.end(BYTES);
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    originUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    s3 = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory: join(work, 's3'),
      configureBuckets: [{ name: 'models' }],
    });
    s3Url = `http://127.0.0.1:${(await s3.run()).port}`;
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    const client = new S3Client({ endpoint: s3Url, forcePathStyle: true, region: 'us-east-1' });
    await client.send(new PutObjectCommand({ Bucket: 'models', Key: 'm.onnx', Body: BYTES }));
    client.destroy();
  });

  afterAll(async () => {
    proxy?.kill();
    await new Promise((resolve) => origin?.close(resolve));
    await s3?.close();
    rmSync(work, { recursive: true, force: true });
    process.env.AWS_ACCESS_KEY_ID = saved.id;
    process.env.AWS_SECRET_ACCESS_KEY = saved.secret;
    if (saved.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (saved.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  it('fetches an http artifact through a tunnel to its vetted address', async () => {
    const before = tunnels().length;
    const fetched = await store(readProxySettings({ HTTP_PROXY: proxyUrl })).fetchArtifact({
      uri: `${originUrl}/model.onnx`,
      sha256: SHA,
    });
    expect(fetched).toMatchObject({ sha256: SHA, bytes: BYTES.length, cached: false });
    expect(tunnels().slice(before)).toEqual([originUrl.replace('http://', '')]);
  });

  it('goes straight to a host NO_PROXY names', async () => {
    const before = tunnels().length;
    const settings = readProxySettings({ HTTP_PROXY: proxyUrl, NO_PROXY: 'localhost,127.0.0.1' });
    const fetched = await store(settings).fetchArtifact({ uri: `${originUrl}/model.onnx`, sha256: SHA });
    expect(fetched.sha256).toBe(SHA);
    expect(tunnels().length).toBe(before);
  });

  it('fetches an s3:// object through the proxy, and straight when NO_PROXY names the endpoint', async () => {
    const before = tunnels().length;
    const viaProxy = await store(readProxySettings({ HTTP_PROXY: proxyUrl }), s3Url).fetchArtifact({
      uri: 's3://models/m.onnx',
      sha256: SHA,
    });
    expect(viaProxy.sha256).toBe(SHA);
    expect(tunnels().slice(before)).toContain(s3Url.replace('http://', ''));
    const count = tunnels().length;
    const direct = store(readProxySettings({ HTTP_PROXY: proxyUrl, NO_PROXY: '127.0.0.1' }), s3Url);
    expect((await direct.fetchArtifact({ uri: 's3://models/m.onnx', sha256: SHA })).sha256).toBe(SHA);
    expect(tunnels().length).toBe(count);
  });

  it('answers UNAVAILABLE naming the proxy when it cannot be reached', async () => {
    const closed = `http://127.0.0.1:${await freePort()}`;
    await expect(
      store(readProxySettings({ HTTP_PROXY: closed })).fetchArtifact({
        uri: `${originUrl}/m.onnx`,
        sha256: SHA,
      }),
    ).rejects.toMatchObject({
      code: ErrorCode.UNAVAILABLE,
      message: expect.stringContaining(
        `proxy ${closed.replace('http://', '')} could not open a tunnel`,
      ) as string,
    });
  });
});
