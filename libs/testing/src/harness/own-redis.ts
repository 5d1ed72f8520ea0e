/**
 * A redis-server of a test's (or the chaos run's) own on a free port (the shared one on :6379 is
 * never stopped), without persistence: "down" is SIGKILL, "up" starts it again on the same port,
 * empty, as a Redis without a volume comes back.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { freePort } from './free-port.js';
import { waitFor } from './service-process.js';
import { Redis } from 'ioredis';

/** A Redis of its own. */
export interface OwnRedis {
  /** `redis://127.0.0.1:<port>`. */
  readonly url: string;
  running(): boolean;
  /** Starts redis-server on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGKILL; resolves once it has exited. */
  kill(): Promise<void>;
  /** Its output so far (every start). */
  output(): string;
}

async function answersPing(port: number): Promise<boolean> {
  const probe = new Redis({ port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } finally {
    probe.disconnect();
  }
}

/** Starts a redis-server of its own. */
export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const log: string[] = [];
  let server: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let spawnFailed = false;
  const running = () =>
    server !== undefined && !spawnFailed && server.exitCode === null && server.signalCode === null;
  const own: OwnRedis = {
    url: `redis://127.0.0.1:${port}`,
    running,
    async start() {
      if (running()) return;
      const child = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      server = child;
      spawnFailed = false;
      child.once('error', (error) => {
        spawnFailed = true;
        log.push(`redis-server could not be started (is it installed and on PATH?): ${error.message}\n`);
      });
      child.stdout.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
      exited = new Promise((resolve) => child.once('exit', () => resolve()));
      await waitFor(async () => !running() || (await answersPing(port)), {
        timeoutMs: 30_000,
        describe: () => log.join('').slice(-2000),
      });
      if (!running()) throw new Error(`redis-server did not start:\n${log.join('').slice(-2000)}`);
    },
    async kill() {
      if (!running()) return;
      server?.kill('SIGKILL');
      await exited;
    },
    output: () => log.join(''),
  };
  await own.start();
  return own;
}
