/**
 * A Postgres cluster of the chaos run's own, from the system's server binaries (initdb, postgres
 * on PATH): the shared Postgres on :5432 is never stopped. initdb into a scratch directory, the
 * postmaster on a free port of 127.0.0.1; "down" is `pg_ctl stop -m immediate` (SIGQUIT to the
 * postmaster: every backend ends at once, no checkpoint, crash recovery on the next start), "up"
 * starts it again on the same data directory and port. initdb and postgres refuse to run as root,
 * so under root both run as the `postgres` user.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chown, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@modelgate/testing';
import pg from 'pg';

/** The run's own Postgres. */
export interface OwnPostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust auth). */
  readonly url: string;
  /** Whether the postmaster is running. */
  running(): boolean;
  /** Starts the postmaster on the same data directory and port; resolves once it accepts queries. */
  start(): Promise<void>;
  /** `pg_ctl stop -m immediate`: SIGQUIT to the postmaster; resolves once it has exited. */
  stopImmediately(): Promise<void>;
  /** Server log so far (every start). */
  output(): string;
  /** Stops it if running and removes its files. */
  destroy(): Promise<void>;
}

interface OsUser {
  uid: number;
  gid: number;
}

/** The user the server runs as: this one, or `postgres` under root. */
function serverUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'running as root: initdb and postgres refuse root, and there is no `postgres` user to run them as',
    );
  }
}

/** Runs `command` to completion as `user`; rejects with its output when it fails. */
function runAs(user: OsUser | undefined, command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...user, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: string[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error(
              `${command} is not on PATH: install the PostgreSQL server binaries (e.g. postgresql-15)`,
            )
          : error,
      ),
    );
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} exited with ${code}:\n${chunks.join('')}`)),
    );
  });
}

async function acceptsQueries(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** initdb of a new cluster in a directory of its own under the OS temp dir, then its first start. */
export async function startOwnPostgres(): Promise<OwnPostgres> {
  const user = serverUser();
  // Its own directory, not the run's scratch dir: mkdtemp makes directories only their owner can enter.
  const root = await mkdtemp(join(tmpdir(), 'modelgate-chaos-postgres-'));
  if (user) await chown(root, user.uid, user.gid);
  const dataDir = join(root, 'data');
  await runAs(user, 'initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const log: string[] = [];
  let postmaster: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let spawnFailed = false;
  const running = () =>
    postmaster !== undefined &&
    !spawnFailed &&
    postmaster.exitCode === null &&
    postmaster.signalCode === null;

  const own: OwnPostgres = {
    url,
    running,
    async start() {
      if (running()) return;
      const child = spawn(
        'postgres',
        [
          ...['-D', dataDir, '-p', String(port), '-k', root],
          ...['-c', 'listen_addresses=127.0.0.1'],
          // A scratch cluster: durability is not what the drills test, and the disk is shared.
          ...['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off'],
        ],
        { ...user, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      postmaster = child;
      spawnFailed = false;
      child.once('error', (error) => {
        spawnFailed = true;
        log.push(`postgres could not be started: ${error.message}\n`);
      });
      child.stdout.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
      exited = new Promise((resolve) => child.once('exit', () => resolve()));
      await waitFor(async () => !running() || (await acceptsQueries(url)), {
        timeoutMs: 60_000,
        intervalMs: 100,
        describe: () => log.join('').slice(-2000),
      });
      if (!running()) throw new Error(`postgres exited on start:\n${log.join('').slice(-2000)}`);
    },
    async stopImmediately() {
      if (!running()) return;
      postmaster?.kill('SIGQUIT');
      await exited;
    },
    output: () => log.join(''),
    async destroy() {
      await own.stopImmediately();
      await rm(root, { recursive: true, force: true });
    },
  };
  try {
    await own.start();
  } catch (error) {
    await own.destroy();
    throw error;
  }
  return own;
}
