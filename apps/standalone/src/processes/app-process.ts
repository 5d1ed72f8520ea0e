import { type ChildProcess, spawn } from 'node:child_process';

/** The module each app preloads to exit when the launcher is gone. */
const EXIT_WITH_LAUNCHER = new URL('./exit-with-launcher.js', import.meta.url).href;

/** How a process ended. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** `exit code 1`, `signal SIGKILL`. */
export function describeExit(status: ExitStatus): string {
  return status.signal !== null ? `signal ${status.signal}` : `exit code ${status.code ?? 'unknown'}`;
}

/**
 * One modelgate app (`node apps/<name>/dist/main.js`) run by the launcher. It gets its own
 * process group, so a Ctrl-C in the terminal reaches only the launcher, which then stops the apps
 * in order (gateway and worker before the registry, the registry before the database); if the
 * launcher dies instead, the app notices and stops itself (exit-with-launcher.ts). Output goes
 * straight to the launcher's stdout and stderr.
 */
export class AppProcess {
  readonly exited: Promise<ExitStatus>;
  readonly #child: ChildProcess;

  constructor(
    readonly name: string,
    script: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.#child = spawn(process.execPath, ['--import', EXIT_WITH_LAUNCHER, script], {
      env,
      stdio: ['ignore', 'inherit', 'inherit'],
      detached: true,
    });
    this.exited = new Promise((resolve) => {
      this.#child.once('exit', (code, signal) => resolve({ code, signal }));
      // A spawn failure never starts the process: report it as an exit.
      this.#child.once('error', () => resolve({ code: 127, signal: null }));
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /**
   * SIGTERM, then SIGKILL once `graceMs` has passed. The apps drain and close on SIGTERM; the
   * gateway re-raises it once closed (Nest's shutdown hooks), so that exit is clean too.
   */
  async stop(graceMs: number): Promise<ExitStatus> {
    if (!this.running) return this.exited;
    this.#child.kill('SIGTERM');
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends `signal` now, without waiting (synchronous: usable in a process 'exit' handler). */
  kill(signal: NodeJS.Signals): void {
    if (this.running) this.#child.kill(signal);
  }
}

/** Whether an app ended as asked by stop(): exit 0, or the SIGTERM it was sent. */
export function isCleanExit(status: ExitStatus): boolean {
  return status.code === 0 || status.signal === 'SIGTERM';
}
