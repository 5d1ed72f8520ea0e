import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  waitFor,
  startServingPair,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const REQUESTS = 20;

describe('gateway: shadow routes mirror requests to their model, and never touch the answer', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'bert', fixture: 'tiny-bert-sst2', version: '1' },
        { name: 'bert', fixture: 'tiny-bert-sst2', version: '2' },
        // Routed as a shadow, but in a group no worker serves: every mirror of it fails.
        { name: 'lost', fixture: 'tiny-bert-sst2', workerGroup: 'nowhere' },
      ],
      {
        endpoints: [
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [
              { model: 'bert:1', weight: 100, role: 'primary' },
              { model: 'bert:2', weight: 100, role: 'shadow' },
              { model: 'lost:1', weight: 100, role: 'shadow' },
            ],
          },
        ],
        otherWorkerGroups: [{ name: 'nowhere', addresses: [] }],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  const gatewayMetric = async (name: string, labels: Record<string, string>) =>
    metricValue(await (await fetch(`${gateway.url}/metrics`)).text(), name, labels);
  const workerMetric = async (name: string, labels: Record<string, string>) =>
    metricValue(await (await fetch(`${worker.httpUrl}/metrics`)).text(), name, labels);

  it('sends every request to the shadow at weight 100, answers from the primary, and records agreement', async () => {
    const texts = Array.from({ length: REQUESTS }, (_, i) => `sentence number ${i} is rather good`);
    const answers = await Promise.all(texts.map((text) => gateway.post('/serve/sentiment', { text })));
    expect(answers.map((answer) => answer.status)).toEqual(texts.map(() => 200));
    expect(new Set(answers.map((answer) => (answer.body as { version: string }).version))).toEqual(
      new Set(['1']),
    );

    const shadow = { serving_endpoint: 'sentiment', model: 'bert', version: '2' };
    await waitFor(
      async () =>
        (await gatewayMetric('modelgate_shadow_requests_total', { ...shadow, outcome: 'ok' })) === REQUESTS,
    );
    // The shadow's worker really ran every row (mirrors of one turn may share a ModelInfer), and
    // the same weights agree on every row.
    expect(await workerMetric('modelgate_batch_size_sum', { model: 'bert', version: '2' })).toBe(REQUESTS);
    expect(await gatewayMetric('modelgate_shadow_agreement_total', { ...shadow, result: 'agree' })).toBe(
      REQUESTS,
    );
    expect(await gatewayMetric('modelgate_shadow_agreement_total', { ...shadow, result: 'disagree' })).toBe(
      0,
    );
    // A shadow no worker serves fails its mirrors only.
    await waitFor(
      async () =>
        (await gatewayMetric('modelgate_shadow_requests_total', {
          serving_endpoint: 'sentiment',
          model: 'lost',
          version: '1',
          outcome: 'error',
        })) === REQUESTS,
    );
    expect(
      await gatewayMetric('modelgate_requests_total', { serving_endpoint: 'sentiment', code: '200' }),
    ).toBe(REQUESTS);
  });
});
