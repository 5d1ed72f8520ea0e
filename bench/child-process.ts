/**
 * Every measured party (raw onnxruntime, the naive server, load generators) runs as its own
 * process, so no benchmark shares an event loop with what it measures. A child is a TypeScript
 * file run through tsx; it reads its settings from BENCH_CHILD_CONFIG and, when it has a result,
 * prints one `BENCH_RESULT <json>` line.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pinnedArgv } from './cpu-pinning.js';

const CONFIG_ENV = 'BENCH_CHILD_CONFIG';
const RESULT_PREFIX = 'BENCH_RESULT ';
const MARK_PREFIX = 'BENCH_MARK ';

/** The bench/ directory. */
export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** The repository root (where `--import tsx` resolves). */
export const REPO_ROOT = dirname(BENCH_DIR);

/** A bench child script by file name, e.g. `raw-session-run.ts`. */
export function childScript(name: string): string {
  return join(BENCH_DIR, 'children', name);
}

/** A child process started by {@link spawnChild}. */
export interface RunningChild {
  readonly child: ChildProcess;
  readonly pid: number;
  /** stdout and stderr so far. */
  output(): string;
  /** Resolves with the parsed BENCH_RESULT line once the child exits with 0; rejects otherwise. */
  readonly result: Promise<unknown>;
  /** Resolves when the child calls `mark(name)`; rejects if it exits first. */
  marked(name: string): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

/** How a child is started besides its config. */
export interface SpawnOptions {
  /** Added to the environment. */
  env?: Record<string, string>;
  /** Cores to pin the child to from its start (`taskset -c`), e.g. `1`; unpinned when unset. */
  cpuList?: string;
}

/** Children started by spawnChild that have not exited. */
const running = new Set<ChildProcess>();

/** SIGKILLs every child spawnChild started that is still running (an interrupted run). */
export function killChildren(): void {
  for (const child of running) child.kill('SIGKILL');
}

/** Starts `script` under tsx with `config` in its environment. */
export function spawnChild(script: string, config: unknown, options: SpawnOptions = {}): RunningChild {
  const { env = {}, cpuList } = options;
  const nodeArgs = ['--import', 'tsx', script];
  const [command, args] =
    cpuList === undefined ? [process.execPath, nodeArgs] : pinnedArgv(cpuList, process.execPath, nodeArgs);
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env, [CONFIG_ENV]: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const chunks: string[] = [];
  const marks = new Map<string, () => void>();
  const seen = new Set<string>();
  let partialLine = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    chunks.push(text);
    const lines = (partialLine + text).split('\n');
    partialLine = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith(MARK_PREFIX)) continue;
      const name = line.slice(MARK_PREFIX.length).trim();
      seen.add(name);
      marks.get(name)?.();
    }
  });
  child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const output = (): string => chunks.join('');
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const result = exited.then((code) => {
    const text = output();
    const line = text.split('\n').find((l) => l.startsWith(RESULT_PREFIX));
    if (code !== 0 || line === undefined) {
      throw new Error(`${script} exited with ${code}${line ? '' : ' and no result'}:\n${text.slice(-4000)}`);
    }
    return JSON.parse(line.slice(RESULT_PREFIX.length)) as unknown;
  });
  // A child stopped on purpose has no result; keep that rejection from surfacing unhandled.
  result.catch(() => undefined);
  return {
    child,
    pid: child.pid ?? -1,
    output,
    result,
    marked(name) {
      if (seen.has(name)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        marks.set(name, resolve);
        void exited.then(() =>
          reject(new Error(`${script} exited before '${name}':\n${output().slice(-4000)}`)),
        );
      });
    },
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs `script` to completion and returns its result. */
export async function runChild<T>(script: string, config: unknown, options: SpawnOptions = {}): Promise<T> {
  return (await spawnChild(script, config, options).result) as T;
}

/** Child side: the config the parent passed. */
export function readChildConfig<T>(): T {
  const raw = process.env[CONFIG_ENV];
  if (raw === undefined)
    throw new Error(`${CONFIG_ENV} is not set: run this file through bench/run-bench.ts`);
  return JSON.parse(raw) as T;
}

/** Child side: tells the parent a phase has begun (e.g. `measuring`, after the warm-up). */
export function mark(name: string): void {
  process.stdout.write(`${MARK_PREFIX}${name}\n`);
}

/** Child side: hands `value` back to the parent. */
export function reportResult(value: unknown): void {
  process.stdout.write(`${RESULT_PREFIX}${JSON.stringify(value)}\n`);
}
