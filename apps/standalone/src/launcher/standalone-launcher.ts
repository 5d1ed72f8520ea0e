import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AdminClient } from '@modelgate/admin-client';
import { DEMO_NAME, ensureDemo } from '../demo/demo-model.js';
import { tryDemoRequest } from '../demo/demo-request.js';
import { type EmbeddedPostgres, startEmbeddedPostgres } from '../embedded-postgres/embedded-postgres.js';
import { lockHome } from '../home/home-lock.js';
import { type HomeLayout, homeLayout } from '../home/home-layout.js';
import { readOrCreateSecret, readSecret, writeSecret } from '../home/secret-file.js';
import {
  type LaunchFacts,
  dialHost,
  gatewayEnvironment,
  gatewayUrl,
  registryEnvironment,
  registryUrl,
  workerEnvironment,
  colocatedEnvironment,
} from '../processes/app-environments.js';
import { AppProcess, type ExitStatus, describeExit, isCleanExit } from '../processes/app-process.js';
import { assertPortsFree } from '../processes/port-check.js';
import { answersOk, waitUntil } from '../processes/wait-until.js';
import { type StandaloneConfig } from '../standalone.config.js';
import { readyBanner } from './ready-banner.js';

/** The apps' built entry points, found from this file in apps/standalone/dist/launcher/. */
const APPS_DIR = fileURLToPath(new URL('../../../', import.meta.url));
const appMain = (app: string): string => join(APPS_DIR, app, 'dist', 'main.js');

/** How long an app may take to exit after SIGTERM before it is killed, in ms. */
const STOP_GRACE_MS = 15_000;

/** Deadline of one admin call of the launcher, uploads included (a big model takes a while), in ms. */
const ADMIN_CALL_TIMEOUT_MS = 120_000;

/** Embedded Postgres connections: the registry's one, plus room for a reconnect that overlaps. */
const EMBEDDED_MAX_CONNECTIONS = 4;

/**
 * `npm start`: the registry and a gateway with the worker inside it (MODELGATE_COLOCATED; or the
 * worker as a third process) as child processes of this one, an embedded
 * Postgres (PGlite) in this process when DATABASE_URL is unset, and the demo model and endpoint.
 * Without Redis the gateway and worker poll the registry every 500 ms for a new config revision.
 * stop() brings everything down in order and resolves `stopped` with the exit code.
 */
export class StandaloneLauncher {
  /** Resolves with the process exit code once stop() has finished. */
  readonly stopped: Promise<number>;
  readonly #layout: HomeLayout;
  readonly #abort = new AbortController();
  readonly #apps: AppProcess[] = [];
  #resolveStopped!: (code: number) => void;
  #starting: Promise<void> | undefined;
  #stopping: Promise<void> | undefined;
  #database: EmbeddedPostgres | undefined;
  #releaseHome: (() => Promise<void>) | undefined;

  constructor(
    private readonly config: StandaloneConfig,
    private readonly env: NodeJS.ProcessEnv,
    private readonly say: (line: string) => void,
  ) {
    this.#layout = homeLayout(config.MODELGATE_HOME);
    this.stopped = new Promise((resolve) => (this.#resolveStopped = resolve));
  }

  /** Whether stop() has been called. */
  get isStopping(): boolean {
    return this.#stopping !== undefined;
  }

  /** Brings everything up; rejects when start-up fails or stop() interrupts it. */
  start(): Promise<void> {
    this.#starting ??= this.#start();
    return this.#starting;
  }

  /**
   * Stops the gateway and worker, then the registry, then the embedded database; resolves
   * `stopped` with `code`, or 1 when an app did not exit cleanly. Later calls change nothing.
   */
  stop(code: number, reason: string): Promise<void> {
    this.#stopping ??= (async () => {
      this.say(`stopping (${reason})`);
      this.#abort.abort();
      await this.#starting?.catch(() => undefined);
      const nodes = this.#apps.filter((app) => app.name !== 'registry');
      const registry = this.#apps.filter((app) => app.name === 'registry');
      const clean = [
        ...(await Promise.all(nodes.map((app) => this.#stopApp(app)))),
        ...(await Promise.all(registry.map((app) => this.#stopApp(app)))),
      ].every(Boolean);
      try {
        await this.#database?.stop();
      } catch (error) {
        this.say(`closing the embedded database failed: ${messageOf(error)}`);
        code = 1;
      }
      await this.#releaseHome?.();
      this.say('stopped');
      this.#resolveStopped(clean ? code : 1);
    })();
    return this.#stopping;
  }

  /** Sends `signal` to every app still running, without waiting (for a process 'exit' handler). */
  signalApps(signal: NodeJS.Signals): void {
    for (const app of this.#apps) app.kill(signal);
  }

  async #start(): Promise<void> {
    const startedAt = Date.now();
    const { config } = this;
    const layout = this.#layout;
    const wait = { deadline: startedAt + config.MODELGATE_START_TIMEOUT_MS, signal: this.#abort.signal };

    await mkdir(layout.root, { recursive: true, mode: 0o700 });
    this.#releaseHome = await lockHome(layout.lock);
    await assertPortsFree([
      { variable: 'REGISTRY_PORT', host: config.REGISTRY_HOST, port: config.REGISTRY_PORT },
      { variable: 'GATEWAY_PORT', host: config.GATEWAY_HOST, port: config.GATEWAY_PORT },
      { variable: 'GATEWAY_GRPC_PORT', host: config.GATEWAY_HOST, port: config.GATEWAY_GRPC_PORT },
      { variable: 'WORKER_GRPC_PORT', host: config.WORKER_HOST, port: config.WORKER_GRPC_PORT },
      { variable: 'WORKER_HTTP_PORT', host: config.WORKER_HOST, port: config.WORKER_HTTP_PORT },
    ]);

    const adminToken = config.REGISTRY_BOOTSTRAP_TOKEN ?? (await this.#adminTokenFromHome());
    const databaseUrl = config.DATABASE_URL ?? (await this.#startEmbeddedDatabase());
    this.#abort.signal.throwIfAborted();
    const facts: LaunchFacts = {
      config,
      layout,
      databaseUrl,
      embeddedDatabase: config.DATABASE_URL === undefined,
      adminToken,
    };

    this.#spawn('registry', registryEnvironment(this.env, facts));
    await waitUntil(() => answersOk(`${registryUrl(config)}/health/ready`), {
      ...wait,
      what: 'the registry (migrations run at its first start)',
    });
    this.say(`registry ready at ${registryUrl(config)}`);

    const admin = new AdminClient({
      baseUrl: registryUrl(config),
      token: adminToken,
      timeoutMs: ADMIN_CALL_TIMEOUT_MS,
      uploadTimeoutMs: ADMIN_CALL_TIMEOUT_MS,
      signal: this.#abort.signal,
    });
    const nodeToken = await this.#nodeToken(admin);
    if (config.MODELGATE_COLOCATED) {
      this.#spawn('gateway', colocatedEnvironment(this.env, facts, nodeToken));
    } else {
      this.#spawn('worker', workerEnvironment(this.env, facts, nodeToken));
      this.#spawn('gateway', gatewayEnvironment(this.env, facts, nodeToken));
    }

    if (config.MODELGATE_DEMO) {
      await ensureDemo(admin, this.say, wait, config.WORKER_GROUP);
      await waitUntil(() => tryDemoRequest(gatewayUrl(config)), {
        ...wait,
        what: `the gateway to serve endpoint ${DEMO_NAME}`,
      });
    } else {
      const worker = `http://${dialHost(config.WORKER_HOST)}:${config.WORKER_HTTP_PORT}`;
      await waitUntil(() => answersOk(`${worker}/health/live`), { ...wait, what: 'the worker' });
      await waitUntil(() => answersOk(`${gatewayUrl(config)}/health/live`), { ...wait, what: 'the gateway' });
    }
    this.say(`ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    process.stdout.write(readyBanner(config, layout));
  }

  async #adminTokenFromHome(): Promise<string> {
    const { value, created } = await readOrCreateSecret(this.#layout.adminToken);
    if (created) this.say(`generated the admin token into ${this.#layout.adminToken} (mode 0600)`);
    return value;
  }

  async #startEmbeddedDatabase(): Promise<string> {
    const began = Date.now();
    this.say(`opening the embedded Postgres (PGlite) in ${this.#layout.pgdata}`);
    this.#database = await startEmbeddedPostgres({
      dataDir: this.#layout.pgdata,
      maxConnections: EMBEDDED_MAX_CONNECTIONS,
    });
    this.say(`embedded Postgres ready in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    return this.#database.url;
  }

  /**
   * The viewer token the gateway and worker read the registry with: the stored one while the
   * registry still accepts it, else a new one (first start, or a database that was reset).
   */
  async #nodeToken(admin: AdminClient): Promise<string> {
    const path = this.#layout.nodeToken;
    const stored = await readSecret(path);
    if (stored !== undefined) {
      const asNode = new AdminClient({
        baseUrl: registryUrl(this.config),
        token: stored,
        timeoutMs: 10_000,
        signal: this.#abort.signal,
      });
      if (await asNode.canReadSnapshot()) return stored;
    }
    const name = `standalone-nodes-${randomBytes(3).toString('hex')}`;
    const { token } = await admin.createToken({ name, role: 'viewer' });
    await writeSecret(path, token);
    return token;
  }

  #spawn(name: string, env: NodeJS.ProcessEnv): void {
    this.#abort.signal.throwIfAborted();
    const app = new AppProcess(name, appMain(name), env);
    this.#apps.push(app);
    void app.exited.then((status) => {
      if (!this.isStopping) void this.stop(1, `${name} exited unexpectedly with ${describeExit(status)}`);
    });
  }

  async #stopApp(app: AppProcess): Promise<boolean> {
    const status: ExitStatus = await app.stop(STOP_GRACE_MS);
    const clean = isCleanExit(status);
    if (!clean) this.say(`${app.name} ended with ${describeExit(status)}`);
    return clean;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
