// `npm start` end to end: the standalone launcher brings up the registry, a worker and a gateway
// with an embedded Postgres and no Redis, registers the demo, stops cleanly on SIGINT, and a
// second start on the same home serves the same endpoint without registering anything again.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AdminClient } from '@modelgate/admin-client';
import { type FleetStatusView } from '@modelgate/contracts';
import { FIXTURES_DIR_ENV, findRepoRoot } from '@modelgate/fixtures';
import { KserveWireClient, freePort, rawBytes, readRawBytes, waitFor } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const STANDALONE_MAIN = join(findRepoRoot(), 'apps', 'standalone', 'dist', 'main.js');

/** Variables of the apps and the launcher: none may leak in from the environment of the test run. */
const APP_VARIABLE = /^(DATABASE_|REDIS_|REGISTRY_|GATEWAY_|WORKER_|MODELGATE_)/;

interface Launch {
  child: ChildProcess;
  output(): string;
  exited: Promise<number | string>;
}

function launch(env: Record<string, string>, args: readonly string[] = []): Launch {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !APP_VARIABLE.test(key) || key === FIXTURES_DIR_ENV),
  );
  const child = spawn(process.execPath, [STANDALONE_MAIN, ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return { child, output: () => chunks.join(''), exited };
}

/** The printed curl line, as the request it stands for. */
interface CurlRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

async function waitForCurlLine(run: Launch): Promise<CurlRequest> {
  let request: CurlRequest | undefined;
  await waitFor(
    () => {
      if (run.child.exitCode !== null) throw new Error('the launcher exited');
      const match = /curl -s (\S+) -H '([^:']+): ([^']+)' -d '([^']+)'/.exec(run.output());
      if (match === null) return false;
      const [, address = '', header = '', value = '', body = ''] = match;
      request = { url: `http://${address}`, headers: { [header]: value }, body };
      return true;
    },
    { timeoutMs: 150_000, intervalMs: 200, describe: () => run.output() },
  );
  if (request === undefined) throw new Error(`no curl line in:\n${run.output()}`);
  return request;
}

interface ServeAnswer {
  model: string;
  version: string;
  predictions: { label: string; score: number }[][];
}

async function curl(request: CurlRequest): Promise<{ status: number; body: ServeAnswer }> {
  const response = await fetch(request.url, { method: 'POST', headers: request.headers, body: request.body });
  return { status: response.status, body: (await response.json()) as ServeAnswer };
}

async function stopWithSigint(run: Launch): Promise<number | string> {
  run.child.kill('SIGINT');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 60_000);
  try {
    return await run.exited;
  } finally {
    clearTimeout(timer);
  }
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

describe('npm start (standalone mode)', () => {
  let home: string;
  let env: Record<string, string>;
  let ports: number[];
  const runs: Launch[] = [];

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), 'modelgate-standalone-'));
    ports = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const [gateway, registry, grpc, http, gatewayGrpc] = ports.map(String);
    env = {
      MODELGATE_HOME: home,
      GATEWAY_PORT: gateway ?? '',
      REGISTRY_PORT: registry ?? '',
      WORKER_GRPC_PORT: grpc ?? '',
      WORKER_HTTP_PORT: http ?? '',
      GATEWAY_GRPC_PORT: gatewayGrpc ?? '',
    };
  });

  afterAll(async () => {
    for (const run of runs) if (run.child.exitCode === null) run.child.kill('SIGKILL');
    await rm(home, { recursive: true, force: true });
  });

  it('refuses command-line arguments, which it would otherwise start past on the default ports', async () => {
    const run = launch(env, ['--port', '9090']);
    runs.push(run);
    expect(await run.exited).toBe(2);
    expect(run.output()).toContain('the launcher takes no arguments (got --port 9090)');
  });

  it('serves the demo, stops cleanly on SIGINT, and keeps what was registered across a restart', async () => {
    const first = launch(env);
    runs.push(first);
    const request = await waitForCurlLine(first);
    expect(request.url).toBe(`http://localhost:${ports[0]}/serve/demo`);
    const answer = await curl(request);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ model: 'demo', version: '1' });
    expect(answer.body.predictions).toHaveLength(1);
    expect(answer.body.predictions[0]?.[0]?.label).toMatch(/^(NEGATIVE|POSITIVE)$/);
    // The gateway's gRPC face is on: the same text as BYTES answers the same prediction.
    const grpc = new KserveWireClient(`127.0.0.1:${ports[4]}`);
    try {
      const text = (JSON.parse(request.body) as { text: string }).text;
      const viaGrpc = await grpc.modelInfer({
        model: 'demo',
        inputs: [{ name: 'text', datatype: 'BYTES', shape: [1], raw: rawBytes([text]) }],
      });
      expect(
        readRawBytes(viaGrpc.raw[0] ?? new Uint8Array()).map((element) => JSON.parse(element) as unknown),
      ).toEqual(answer.body.predictions);
    } finally {
      grpc.close();
    }
    expect(first.output()).toContain('registered model demo:1');
    expect(first.output()).toContain(join(home, 'admin-token'));
    expect((await stat(join(home, 'admin-token'))).mode & 0o777).toBe(0o600);

    expect(await stopWithSigint(first)).toBe(0);
    // Every app is gone with it: all five ports are free again.
    for (const port of ports) expect(await portIsFree(port)).toBe(true);

    const second = launch(env);
    runs.push(second);
    const again = await waitForCurlLine(second);
    expect(second.output()).toContain('model demo:1 already exists (READY)');
    expect(second.output()).toContain('endpoint demo already exists');
    expect(second.output()).not.toContain('registered model');
    const answerAgain = await curl(again);
    expect(answerAgain.status).toBe(200);
    expect(answerAgain.body).toMatchObject({ model: 'demo', version: '1' });

    const token = (await readFile(join(home, 'admin-token'), 'utf8')).trim();
    const admin = new AdminClient({ baseUrl: `http://127.0.0.1:${ports[1]}`, token });
    expect((await admin.listModels('demo')).map((model) => model.id)).toEqual(['demo:1']);

    // Without Redis the gateway and the worker report to the registry over HTTP: status sees both.
    let status: FleetStatusView = { revision: 0, nodes: [], rollouts: [] };
    await waitFor(
      async () => {
        status = await admin.status();
        return status.nodes.length === 2;
      },
      { timeoutMs: 30_000, intervalMs: 250, describe: () => JSON.stringify(status) },
    );
    expect(status.nodes.map((node) => node.role).sort()).toEqual(['gateway', 'worker']);
    expect(status.nodes.find((node) => node.role === 'worker')?.models).toEqual({ 'demo:1': 'READY' });

    expect(await stopWithSigint(second)).toBe(0);

    // A worker of another group would never load the demo: the launcher says so instead of
    // waiting for a gateway that cannot serve it.
    const third = launch({ ...env, WORKER_GROUP: 'gpu' });
    runs.push(third);
    expect(await third.exited).not.toBe(0);
    expect(third.output()).toContain(
      "model demo:1 belongs to worker group 'default', but this standalone's worker serves 'gpu' (WORKER_GROUP)",
    );
  }, 300_000);
});
