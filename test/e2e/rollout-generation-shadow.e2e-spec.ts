// Shadow agreement for generation in a real rollout (issue 41, item 5): a registry, a gateway and
// a worker on real Postgres and Redis, 2 s windows. The candidate (tiny-gpt2-chat: other weights,
// other generation defaults) answers every greedy prompt unlike the primary (tiny-gpt2). Sampled
// requests without a seed are mirrored but not compared, so a shadow phase fed only those holds,
// says why, and never rolls back; greedy requests are compared and the disagreement rolls it back.
import { join } from 'node:path';
import { type RolloutView } from '@modelgate/contracts';
import { type RunningGateway, fixtureRegistration, waitForPrepared } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RolloutStack, ended } from './support/rollout-stack.js';

/** Sends generation requests to an endpoint back to back until stopped, keeping every status. */
class Client {
  readonly statuses: number[] = [];
  private running = true;
  private readonly loop: Promise<void>;

  constructor(
    private readonly gateway: RunningGateway,
    private readonly endpoint: string,
    private readonly parameters: Record<string, unknown>,
  ) {
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  private async run(): Promise<void> {
    for (let i = 0; this.running; i++) {
      const answer = await this.gateway.post(`/serve/${this.endpoint}`, {
        text: `Once upon a time ${i}`,
        parameters: { max_new_tokens: 6, ...this.parameters },
      });
      this.statuses.push(answer.status);
    }
  }
}

describe('generation rollouts judged on comparable answers only: registry + gateway + worker', () => {
  const stack = new RolloutStack();

  const start = async (endpoint: string): Promise<void> => {
    const run = await stack.cli(
      'rollout',
      'start',
      endpoint,
      '--to',
      'gen:2',
      '--steps',
      '10,100',
      '--interval',
      '2s',
      '--shadow-first',
      '2s',
      '--min-requests',
      '5',
      '--json',
    );
    expect(run.code, run.stderr).toBe(0);
  };

  beforeAll(async () => {
    const registry = await stack.startRegistry();
    const files = join(stack.iso.dir, 'files');
    for (const [version, fixture] of [
      ['1', 'tiny-gpt2'],
      ['2', 'tiny-gpt2-chat'],
    ] as const) {
      const body = await fixtureRegistration(fixture, 'gen', 'text-generation', files);
      await registry.admin.registerModel({ ...body, version });
      expect((await waitForPrepared(registry.admin, `gen:${version}`)).status).toBe('READY');
    }
    for (const name of ['poet', 'critic']) {
      await registry.admin.createEndpoint({ name, task: 'text-generation', model: 'gen:1' });
    }
    await stack.startNodes({ path: '/serve/poet', body: { text: 'warm' } });
  });

  afterAll(() => stack.stop());

  it('holds a shadow fed only sampled requests without a seed, counting them uncompared, and never rolls it back', async () => {
    const client = new Client(stack.gateway, 'poet', { do_sample: true, temperature: 1.5 });
    let held: RolloutView;
    try {
      await start('poet');
      // Two judged windows, each with sampled mirrors the candidate answered and none compared.
      held = await stack.until('poet', (view) => {
        const holds = view.history.filter((entry) => entry.event === 'hold');
        return holds.reduce((sum, entry) => sum + (entry.times ?? 1), 0) >= 2 || ended(view);
      });
    } finally {
      await client.stop();
    }
    expect(held.state).toBe('RUNNING');
    expect(held.phase).toBe('shadow');
    const hold = held.history.filter((entry) => entry.event === 'hold').at(-1)!;
    expect(hold.reason).toMatch(/0 mirrored rows, fewer than the 5 needed \(\d+ sampled without a seed/);
    expect(hold.window).toMatchObject({ agreeing: 0, disagreeing: 0 });
    expect(hold.window?.uncompared).toBeGreaterThan(0);
    expect(hold.window?.mirrored).toBeGreaterThan(0);
    const shown = await stack.cli('rollout', 'status', 'poet');
    expect(shown.stdout).toContain('sampled without a seed were not compared');
    const aborted = await stack.cli('rollout', 'abort', 'poet');
    expect(aborted.code, aborted.stderr).toBe(0);
    expect(client.statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('rolls back a shadow whose greedy answers disagree with the primary', async () => {
    const client = new Client(stack.gateway, 'critic', {});
    let back: RolloutView;
    try {
      await start('critic');
      back = await stack.until('critic', ended);
    } finally {
      await client.stop();
    }
    expect(back.state).toBe('ROLLED_BACK');
    expect(back.history.map((entry) => entry.phase)).not.toContain('live');
    expect(back.history.at(-1)?.reason).toMatch(/agreement \d+\.\d+ % below 95\.0 %/);
    expect(back.history.at(-1)?.window?.uncompared ?? 0).toBe(0);
    expect(client.statuses.filter((status) => status !== 200)).toEqual([]);
  });
});
