import { type ChildProcess, spawn } from 'node:child_process';

/** A modelgate app started as its own process by a test. */
export interface ServiceProcess {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code (or signal name) once it has exited. */
  readonly exited: Promise<number | string>;
  /** Sends `signal` and waits for the exit (SIGKILL after `graceMs`). */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | string>;
}

/** Starts `node <script>` with `env` added to this process's environment. */
export function startServiceProcess(
  script: string,
  env: Record<string, string>,
  cwd?: string,
): ServiceProcess {
  // MODELGATE_NODE_ARGS: extra node flags for the bench's profiles (--cpu-prof is not allowed in NODE_OPTIONS).
  const nodeArgs = (env.MODELGATE_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env: { ...process.env, ...env },
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const chunks: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  return {
    child,
    output: () => chunks.join(''),
    exited,
    async stop(signal = 'SIGTERM', graceMs = 15_000) {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Polls `check` every `intervalMs` until it returns true; throws with `describe()` after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean> | boolean,
  options: { timeoutMs?: number; intervalMs?: number; describe?: () => string } = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting${options.describe ? `: ${options.describe()}` : ''}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}

/**
 * Waits until the started `service` passes `check` (as {@link waitFor}, its output in the error);
 * when it never does, kills it before throwing, so a service that failed to start outlives no test.
 */
export async function waitForService(
  service: ServiceProcess,
  check: () => Promise<boolean> | boolean,
  timeoutMs: number,
): Promise<void> {
  try {
    await waitFor(check, { timeoutMs, describe: () => service.output() });
  } catch (error) {
    await service.stop('SIGKILL');
    throw error;
  }
}
