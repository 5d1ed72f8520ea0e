import { describe, expect, it } from 'vitest';
import { GatewayMetrics } from '../metrics/gateway-metrics.js';
import { type MirrorJob, ShadowMirror } from './shadow-mirror.js';

async function counter(
  metrics: GatewayMetrics,
  name: string,
  labels: Record<string, string>,
): Promise<number> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  const sample = metric?.values.find((value) =>
    Object.entries(labels).every(([key, wanted]) => value.labels[key] === wanted),
  );
  return sample?.value ?? 0;
}

/** Resolves once every mirror started so far has finished. */
async function settled(mirror: ShadowMirror): Promise<void> {
  while (mirror.running > 0) await new Promise((resolve) => setImmediate(resolve));
}

const classification = (label: string, score: number) => [[{ label, score }]];

function job(overrides: Partial<MirrorJob>): MirrorJob {
  return {
    endpoint: 'sentiment',
    model: 'sst2:2',
    task: 'text-classification',
    shadowTask: 'text-classification',
    primary: classification('POSITIVE', 0.9),
    predict: () => Promise.resolve(classification('POSITIVE', 0.85)),
    ...overrides,
  };
}

describe('ShadowMirror', () => {
  it('runs the mirror after the caller goes on, and records its outcome and agreement', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics);
    let started = false;
    mirror.mirror(
      job({ predict: () => ((started = true), Promise.resolve(classification('NEGATIVE', 0.6))) }),
    );
    expect(started).toBe(false); // not on the caller's turn
    await settled(mirror);
    expect(started).toBe(true);
    const labels = { serving_endpoint: 'sentiment', model: 'sst2', version: '2' };
    expect(await counter(metrics, 'modelgate_shadow_requests_total', { ...labels, outcome: 'ok' })).toBe(1);
    expect(
      await counter(metrics, 'modelgate_shadow_agreement_total', { ...labels, result: 'disagree' }),
    ).toBe(1);
  });

  it('compares a greedy generation by its text, and counts a sampled one without a seed as uncompared, outside the rollout window', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics);
    const generation = (text: string) => [{ generated_text: text }];
    const base = {
      endpoint: 'writer',
      model: 'gpt:2',
      task: 'text-generation' as const,
      shadowTask: 'text-generation' as const,
      primary: generation(' Paris'),
      predict: () => Promise.resolve(generation(' Lyon')),
    };
    mirror.mirror({ ...base, comparable: false });
    mirror.mirror({ ...base, comparable: false });
    await settled(mirror);
    const labels = { serving_endpoint: 'writer', model: 'gpt', version: '2' };
    const rows = (result: string) =>
      counter(metrics, 'modelgate_shadow_agreement_total', { ...labels, result });
    expect(await rows('uncompared')).toBe(2);
    expect(await rows('disagree')).toBe(0);
    expect(metrics.traffic.report().endpoints.writer?.['gpt:2']).toMatchObject({
      agreeing: 0,
      disagreeing: 0,
    });
    mirror.mirror(base);
    await settled(mirror);
    expect(await rows('disagree')).toBe(1);
    expect(metrics.traffic.report().endpoints.writer?.['gpt:2']).toMatchObject({
      agreeing: 0,
      disagreeing: 1,
    });
  });

  it('counts a failing shadow as an error and never throws', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics);
    mirror.mirror(job({ predict: () => Promise.reject(new Error('worker gone')) }));
    await settled(mirror);
    expect(await counter(metrics, 'modelgate_shadow_requests_total', { outcome: 'error' })).toBe(1);
  });

  it('drops (and counts) a mirror past its bound of mirrors in flight', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics, 2);
    let release!: () => void;
    const held = new Promise<readonly unknown[]>(
      (resolve) => (release = () => resolve(classification('POSITIVE', 0.9))),
    );
    for (let i = 0; i < 3; i++) mirror.mirror(job({ predict: () => held }));
    expect(mirror.running).toBe(2);
    expect(await counter(metrics, 'modelgate_shadow_requests_total', { outcome: 'dropped' })).toBe(1);
    release();
    await settled(mirror);
    expect(await counter(metrics, 'modelgate_shadow_requests_total', { outcome: 'ok' })).toBe(2);
    expect(await counter(metrics, 'modelgate_shadow_agreement_total', { result: 'agree' })).toBe(2);
  });

  it('compares embeddings by cosine similarity', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics);
    mirror.mirror(
      job({
        task: 'feature-extraction',
        shadowTask: 'feature-extraction',
        primary: [{ embedding: [1, 0] }],
        predict: () => Promise.resolve([{ embedding: [1, 0] }]),
      }),
    );
    await settled(mirror);
    const histogram = await metrics.registry.getSingleMetric('modelgate_shadow_cosine_similarity')?.get();
    const count = histogram?.values.find(
      (value) => (value as { metricName?: string }).metricName === 'modelgate_shadow_cosine_similarity_count',
    );
    expect(count?.value).toBe(1);
  });

  it('survives answers it cannot compare: NaN scores, or a shadow of another task', async () => {
    const metrics = new GatewayMetrics();
    const mirror = new ShadowMirror(metrics);
    mirror.mirror(job({ predict: () => Promise.resolve(classification('POSITIVE', Number.NaN)) }));
    mirror.mirror(
      job({ shadowTask: 'feature-extraction', predict: () => Promise.resolve([{ embedding: [1] }]) }),
    );
    mirror.mirror(job({ predict: () => Promise.resolve([{ embedding: [1] }]) })); // wrong shape, same task
    await settled(mirror);
    expect(await counter(metrics, 'modelgate_shadow_requests_total', { outcome: 'ok' })).toBe(3);
  });
});
