// Progressive rollouts with real processes (issue 13): a registry, a gateway and a worker on real
// Postgres and Redis, windows of 2 s, client traffic flowing throughout. A healthy v2 goes
// 10 → 50 → 100 on its own; a v2 that fails at run time is rolled back after its first window; a
// v2 whose labels disagree with v1 is rolled back in its shadow phase before taking a live
// request; the primary's clients never see an error caused by a shadow.
import { join } from 'node:path';
import { type RolloutView } from '@modelgate/contracts';
import { type RunningGateway, waitFor, fixtureRegistration, waitForPrepared } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutStack, ended } from './support/rollout-stack.js';

/** The failing version: its worker's test hook fails every inference of it. */
const FAILING = 'tiny:3';
const HOOK_MESSAGE = `test hook: model ${FAILING} fails every inference`;

/** One client sending requests to an endpoint back to back until stopped, keeping every answer. */
class Client {
  readonly answers: { status: number; version?: string; message?: string }[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly gateway: RunningGateway,
    private readonly endpoint: string,
  ) {
    this.loop = this.run();
  }

  /** Answers that were not 200. */
  get errors() {
    return this.answers.filter((answer) => answer.status !== 200);
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    for (let i = 0; this.running; i++) {
      const answer = await this.gateway.post(`/serve/${this.endpoint}`, {
        text: `sentence ${i} is rather nice`,
      });
      const body = answer.body as { version?: string; error?: { message?: string } };
      this.answers.push({
        status: answer.status,
        ...(body.version === undefined ? {} : { version: body.version }),
        ...(body.error?.message === undefined ? {} : { message: body.error.message }),
      });
    }
  }
}

describe('rollouts end to end: registry + gateway + worker, real Postgres and Redis', () => {
  const stack = new RolloutStack();
  const cli = (...args: string[]) => stack.cli(...args);
  const until = (endpoint: string, done: (view: RolloutView) => boolean) => stack.until(endpoint, done);
  /** Waits until the gateway serves the registry's latest revision. */
  const gatewayCaughtUp = async (): Promise<void> => {
    const latest = (await stack.registry.admin.configSnapshot()).revision;
    await waitFor(async () => {
      const ready = (await (await fetch(`${stack.gateway.url}/health/ready`)).json()) as {
        revision: number | null;
      };
      return (ready.revision ?? -1) >= latest;
    });
  };
  const start = async (endpoint: string, ...options: string[]): Promise<void> => {
    const run = await cli('rollout', 'start', endpoint, ...options, '--json');
    expect(run.code, run.stderr).toBe(0);
    expect((JSON.parse(run.stdout) as RolloutView).state).toBe('PENDING');
  };

  beforeAll(async () => {
    const registry = await stack.startRegistry();
    const files = join(stack.iso.dir, 'files');
    const body = await fixtureRegistration('tiny-bert-sst2', 'tiny', 'text-classification', files);
    // 1: the primary; 2: the same weights (healthy); 3: fails at run time; 4: its labels swapped,
    // so its top-1 label disagrees with 1's on every row.
    for (const [version, extra] of [
      ['1', {}],
      ['2', {}],
      ['3', {}],
      ['4', { labels: ['POSITIVE', 'NEGATIVE'] as string[] }],
    ] as const) {
      await registry.admin.registerModel({ ...body, ...extra, version });
      expect((await waitForPrepared(registry.admin, `tiny:${version}`)).status).toBe('READY');
    }
    for (const name of ['calm', 'flaky', 'moody']) {
      await registry.admin.createEndpoint({ name, task: 'text-classification', model: 'tiny:1' });
    }

    await stack.startNodes(
      { path: '/serve/calm', body: { text: 'warm' } },
      { WORKER_TEST_HOOKS: 'true', WORKER_TEST_FAILING_MODELS: FAILING },
    );
  });

  afterAll(() => stack.stop());

  it('takes a healthy v2 through 10 → 50 → 100 on its own, failing no client', async () => {
    const client = new Client(stack.gateway, 'calm');
    try {
      await start(
        'calm',
        '--to',
        'tiny:2',
        '--steps',
        '10,50,100',
        '--interval',
        '2s',
        '--min-requests',
        '5',
      );
      const status = await cli('status', '--json');
      expect(JSON.parse(status.stdout)).toMatchObject({
        rollouts: [expect.objectContaining({ endpoint: 'calm', to: 'tiny:2' })],
      });
      const done = await until('calm', (view) => ended(view));
      expect(done.state).toBe('COMPLETED');
      const promotions = done.history.filter((entry) => entry.event === 'promote' || entry.event === 'ready');
      expect(promotions.map((entry) => entry.percent)).toEqual([10, 50, 100]);
      for (const entry of done.history.filter((e) => e.event === 'promote')) {
        expect(entry.window).toMatchObject({ errors: 0 });
        expect(entry.window!.requests).toBeGreaterThanOrEqual(5);
      }
      await gatewayCaughtUp();
    } finally {
      await client.stop();
    }
    expect(client.errors).toEqual([]);
    expect(new Set(client.answers.map((answer) => answer.version))).toEqual(new Set(['1', '2']));
    const after = await stack.gateway.post('/serve/calm', { text: 'after the rollout' });
    expect(after.body).toMatchObject({ version: '2', route: 'primary' });
    const shown = await cli('rollout', 'status', 'calm');
    expect(shown.stdout).toMatch(/state:\s+COMPLETED/);
  });

  it('rolls a v2 that fails at run time back after its first window; clients saw only its share fail', async () => {
    const client = new Client(stack.gateway, 'flaky');
    let back: RolloutView;
    try {
      await start('flaky', '--to', FAILING, '--steps', '10,100', '--interval', '2s', '--min-requests', '5');
      back = await until('flaky', (view) => ended(view));
      await gatewayCaughtUp();
    } finally {
      await client.stop();
    }
    expect(back.state).toBe('ROLLED_BACK');
    expect(back.history.some((entry) => entry.event === 'promote')).toBe(false);
    expect(back.history.at(-1)).toMatchObject({ event: 'rollback', percent: 0 });
    expect(back.history.at(-1)?.reason).toMatch(/error rate 100\.0 % \(\d+ of \d+\) above 1\.00 %/);
    // Every failure is the candidate's own (the hook's message), and only a share of requests failed.
    // One sent while the rollback reached the worker before this gateway is answered 503 (retry):
    // the worker no longer had the candidate.
    const skew = { status: 503, message: `no worker can serve model ${FAILING} right now` };
    const own = client.errors.filter((error) => error.status === 500);
    expect(own.length).toBeGreaterThan(0);
    for (const error of own) expect(error).toEqual({ status: 500, message: HOOK_MESSAGE });
    for (const error of client.errors.filter((e) => e.status !== 500)) expect(error).toEqual(skew);
    expect(client.errors.length).toBeLessThan(client.answers.length / 2);
    // Once the previous routes are back, nothing fails.
    for (let i = 0; i < 20; i++) {
      expect((await stack.gateway.post('/serve/flaky', { text: `after ${i}` })).body).toMatchObject({
        version: '1',
      });
    }
  });

  it('rolls a v2 whose labels disagree back during --shadow-first, before it takes a live request', async () => {
    const client = new Client(stack.gateway, 'moody');
    let back: RolloutView;
    try {
      await start(
        'moody',
        '--to',
        'tiny:4',
        '--steps',
        '10,100',
        '--interval',
        '2s',
        '--shadow-first',
        '2s',
        '--min-requests',
        '5',
      );
      back = await until('moody', (view) => ended(view));
    } finally {
      await client.stop();
    }
    expect(back.state).toBe('ROLLED_BACK');
    expect(back.history.map((entry) => entry.phase)).not.toContain('live');
    expect(back.history.at(-1)?.reason).toMatch(/agreement 0\.00 % below 95\.0 %/);
    expect(back.history.at(-1)?.window?.mirrored).toBeGreaterThan(0);
    // The shadow never answered a client, and mirroring it never failed one.
    expect(client.errors).toEqual([]);
    expect(new Set(client.answers.map((answer) => answer.version))).toEqual(new Set(['1']));
  });
});
