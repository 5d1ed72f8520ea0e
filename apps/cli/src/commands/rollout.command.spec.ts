import { type RolloutView, type RolloutWindowNumbersView } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { answer, run, stubRegistry } from '../../test/support/in-process-cli.js';
import { renderRollout } from './rollout-render.js';

const view: RolloutView = {
  id: 'r1',
  endpoint: 'sentiment',
  from: 'sst2:1',
  to: 'sst2:2',
  state: 'RUNNING',
  phase: 'live',
  percent: 25,
  stepIndex: 1,
  steps: [5, 25, 50, 100],
  intervalSeconds: 120,
  shadowFirstSeconds: 300,
  shadowPercent: 100,
  thresholds: { maxErrorRate: 0.01, maxP99Ms: 250, minAgreement: 0.95, minRequests: 100 },
  window: {
    startedAt: '2026-11-22T12:00:00.000Z',
    endsAt: '2026-11-22T12:02:00.000Z',
    numbers: {
      requests: 40,
      errors: 2,
      errorRate: 0.05,
      p99Ms: 31.5,
      mirrored: 0,
      mirrorErrors: 0,
      agreeing: 0,
      disagreeing: 0,
      agreement: null,
    },
  },
  waitingFor: null,
  previousRoutes: [{ model: 'sst2:1', weight: 100, role: 'primary' }],
  history: [
    {
      at: '2026-11-22T11:58:00.000Z',
      event: 'promote',
      actor: 'system:rollouts',
      state: 'RUNNING',
      phase: 'live',
      percent: 25,
      reason: 'error rate 0.00 %, p99 12.0 ms over 400 requests',
    },
  ],
  createdAt: '2026-11-22T11:50:00.000Z',
  updatedAt: '2026-11-22T12:00:00.000Z',
};

describe('modelgate rollout', () => {
  const fetchMock = stubRegistry();

  it('start sends every option in the API’s units and prints the answer as JSON with --json', async () => {
    fetchMock.mockResolvedValueOnce(answer(201, view));
    const result = await run(
      'rollout',
      'start',
      'sentiment',
      '--to',
      'sst2:2',
      '--steps',
      '10,50,100',
      '--interval',
      '1m30s',
      '--max-error-rate',
      '2%',
      '--max-p99-ms',
      '250',
      '--min-agreement',
      '0.9',
      '--min-requests',
      '20',
      '--shadow-first',
      '5m',
      '--shadow-percent',
      '50',
      '--json',
    );
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(view);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('http://registry.test:8081/v1/endpoints/sentiment/rollouts');
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({
      to: 'sst2:2',
      steps: [10, 50, 100],
      intervalSeconds: 90,
      maxErrorRate: 0.02,
      maxP99Ms: 250,
      minAgreement: 0.9,
      minRequests: 20,
      shadowFirstSeconds: 300,
      shadowPercent: 50,
    });
  });

  it('start leaves out what was not given, so the registry’s defaults apply', async () => {
    fetchMock.mockResolvedValueOnce(answer(201, view));
    expect((await run('rollout', 'start', 'sentiment', '--to', 'sst2:2')).code).toBe(0);
    expect(JSON.parse(fetchMock.mock.calls[0]?.[1]?.body as string)).toEqual({ to: 'sst2:2' });
  });

  it.each([
    [['--interval', '90'], /--interval <duration>' argument '90' is invalid.*give a unit/],
    [['--steps', '10,50'], /must end at 100/],
    [['--shadow-percent', '50'], /--shadow-percent applies to the shadow phase: give --shadow-first too/],
    [['--min-agreement', '0.9'], /--min-agreement is checked on mirrored rows.*give --shadow-first too/],
    [['--max-error-rate', '5'], /share from 0 to 1/],
  ])('exits 2 without calling the registry for %j', async (extra, message) => {
    const result = await run('rollout', 'start', 'sentiment', '--to', 'sst2:2', ...extra);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it.each(['pause', 'resume', 'abort', 'promote'])('%s posts to the rollout’s %s action', async (move) => {
    fetchMock.mockResolvedValueOnce(answer(200, view));
    expect((await run('rollout', move, 'sentiment')).code).toBe(0);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe(`http://registry.test:8081/v1/endpoints/sentiment/rollout/${move}`);
    expect(init?.method).toBe('POST');
  });

  it('status reads the latest rollout and exits 1 with the registry’s message when there is none', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(404, {
        error: { code: 'NOT_FOUND', message: 'endpoint sentiment has had no rollout', request_id: 'r' },
      }),
    );
    const result = await run('rollout', 'status', 'sentiment');
    expect(fetchMock.mock.calls[0]?.[0]).toBe('http://registry.test:8081/v1/endpoints/sentiment/rollout');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: endpoint sentiment has had no rollout');
  });
});

describe('modelgate rollout status --watch', () => {
  const fetchMock = stubRegistry();

  it('prints the rollout each time it moves and exits 0 once it completed', async () => {
    fetchMock
      .mockResolvedValueOnce(answer(200, view))
      .mockResolvedValueOnce(answer(200, view))
      .mockResolvedValueOnce(answer(200, { ...view, state: 'COMPLETED', phase: 'done', percent: 100 }));
    const result = await run('rollout', 'status', 'sentiment', '--watch', '--interval', '1ms');
    expect(result.code, result.stderr).toBe(0);
    expect(fetchMock).toHaveBeenCalledTimes(3);
    expect(result.stdout.match(/^rollout: sentiment: sst2:1 → sst2:2/gm)).toHaveLength(2);
    expect(result.stdout).toMatch(/\n\nrollout: sentiment/);
  });

  it('exits 1 saying how it ended when the rollout rolled back', async () => {
    fetchMock.mockResolvedValueOnce(answer(200, { ...view, state: 'ROLLED_BACK', phase: 'done' }));
    const result = await run('rollout', 'status', 'sentiment', '--watch');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: the rollout of sentiment ended rolled back');
  });

  it('refuses --interval without --watch, and --watch with -o json, before any call', async () => {
    const interval = await run('rollout', 'status', 'sentiment', '--interval', '1s');
    expect(interval.code).toBe(2);
    expect(interval.stderr).toContain('--interval paces --watch');
    const json = await run('rollout', 'status', 'sentiment', '--watch', '-o', 'json');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('--watch prints the rollout as it moves; -o json is one answer');
    expect(fetchMock).not.toHaveBeenCalled();
  });
});

describe('renderRollout', () => {
  it('shows the step, the window’s numbers against the thresholds, and the history', () => {
    const text = renderRollout(view, Date.parse('2026-11-22T12:01:00.000Z'));
    expect(text).toContain('rollout: sentiment: sst2:1 → sst2:2');
    expect(text).toContain('traffic: 25 % to sst2:2 (step 2 of 4: 5, 25, 50, 100)');
    expect(text).toContain('2m per step; shadow first for 5m, 100 % mirrored');
    expect(text).toContain('judged in 1m');
    expect(text).toMatch(/error rate\s+5\.00 % \(2 of 40\)\s+≤ 1\.00 %\s+over/);
    expect(text).toMatch(/p99\s+31\.5 ms\s+≤ 250 ms\s+ok/);
    expect(text).toMatch(/requests\s+40\s+≥ 100\s+short/);
    expect(text).toMatch(/promote\s+RUNNING\s+25 %\s+system:rollouts\s+error rate 0\.00 %/);
  });

  it('counts a shadow window as the registry does: compared rows, or answered mirrors where answers are not compared', () => {
    const shadow = (numbers: RolloutWindowNumbersView): string =>
      renderRollout(
        { ...view, phase: 'shadow', percent: 0, window: { ...view.window!, numbers } },
        Date.parse('2026-11-22T12:01:00.000Z'),
      );
    const base: RolloutWindowNumbersView = {
      requests: 0,
      errors: 0,
      errorRate: null,
      p99Ms: null,
      mirrored: 150,
      mirrorErrors: 0,
      agreeing: 0,
      disagreeing: 0,
      agreement: null,
    };
    // Generated texts compared on 5 rows only: the volume is 5, short of 100, as the registry holds.
    const compared = shadow({ ...base, agreeing: 5, agreement: 1, comparesAnswers: true });
    expect(compared).toMatch(/mirrored volume\s+5\s+≥ 100\s+short/);
    expect(compared).toMatch(/agreement\s+100\.0 % \(5 rows\)\s+≥ 95\.0 %\s+ok/);
    // Embeddings: no agreement is measured, and answered mirrors count.
    const notCompared = shadow({ ...base, comparesAnswers: false });
    expect(notCompared).toMatch(/mirrored volume\s+150\s+≥ 100\s+ok/);
    expect(notCompared).toMatch(/agreement\s+- \(0 rows\)\s+not measured\s+-/);
  });
});
