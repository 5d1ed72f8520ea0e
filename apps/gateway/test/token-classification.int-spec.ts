// token-classification through a real gateway and worker process (gRPC, onnxruntime, tiny-bert-ner):
// the gateway tokenizes, the worker runs the per-token head, the gateway groups the entities.
import { type RunningGateway, type RunningWorker, startServingPair } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEXTS = ['Sarah lives in New York', 'Héllo wörld 🤗 東京', ''];

interface Entity {
  entity?: string;
  entity_group?: string;
  score: number;
  index?: number;
  word: string;
  start: number | null;
  end: number | null;
}

describe('gateway: token-classification endpoints', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        { name: 'ner', fixture: 'tiny-bert-ner', task: 'token-classification' },
        { name: 'bert', fixture: 'tiny-bert-sst2' },
      ],
      {
        endpoints: [
          {
            name: 'entities',
            task: 'token-classification',
            routes: [{ model: 'ner:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
        ],
      },
    ));
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  async function entities(body: unknown): Promise<Entity[][]> {
    const answer = await gateway.post('/serve/entities', body);
    expect(answer.status).toBe(200);
    return (answer.body as { predictions: Entity[][] }).predictions;
  }

  it('answers every token with its label, score, index and character span by default', async () => {
    const [tokens, accented, empty] = await entities({ text: TEXTS, parameters: { ignore_labels: [] } });
    expect(tokens!.map((e) => [e.word, e.start, e.end])).toEqual([
      ['sarah', 0, 5],
      ['lives', 6, 11],
      ['in', 12, 14],
      ['new', 15, 18],
      ['york', 19, 23],
    ]);
    expect(tokens!.map((e) => e.index)).toEqual([1, 2, 3, 4, 5]);
    for (const entity of tokens!) {
      expect(entity.entity).toMatch(/^(O|[BI]-(PER|LOC|ORG))$/);
      expect(entity.score).toBeGreaterThan(0);
      expect(entity.score).toBeLessThanOrEqual(1);
    }
    // An emoji is one character and an unknown word: its word is the text itself.
    const unknown = accented!.find((e) => e.start === 12);
    expect(unknown).toMatchObject({ word: '🤗', end: 13 });
    expect(empty).toEqual([]);
    // The default ignore_labels ["O"] leaves out what the first call labelled O.
    const [byDefault] = await entities({ text: TEXTS[0] ? [TEXTS[0]] : [] });
    expect(byDefault).toEqual(tokens!.filter((e) => e.entity !== 'O'));
  });

  it.each(['simple', 'first', 'average', 'max'])(
    'groups entities with aggregation_strategy %s, their spans covering their words',
    async (strategy) => {
      const [groups] = await entities({
        text: 'Sarah lives in New Yorker',
        parameters: { aggregation_strategy: strategy, ignore_labels: [] },
      });
      expect(groups!.length).toBeGreaterThan(0);
      for (const group of groups!) {
        expect(group.entity_group).toMatch(/^(O|PER|LOC|ORG)$/);
        expect(group.entity).toBeUndefined();
        const span = 'Sarah lives in New Yorker'.slice(group.start!, group.end!).toLowerCase();
        expect(span.replace(/\s+/g, '')).toBe(group.word.replace(/^##/, '').replace(/\s+/g, ''));
      }
      const spans = groups!.map((g) => [g.start, g.end]).flat();
      expect(spans).toEqual([...spans].sort((a, b) => a! - b!));
    },
  );

  it('cuts a text longer than the model takes when truncation is on, and answers 422 when it is off', async () => {
    const long = Array.from({ length: 600 }, () => 'paris').join(' ');
    const [tokens] = await entities({ text: long, parameters: { ignore_labels: [], truncation: true } });
    expect(tokens).toHaveLength(510);
    expect(tokens!.at(-1)).toMatchObject({ index: 510, start: 509 * 6, end: 509 * 6 + 5 });
    const refused = await gateway.post('/serve/entities', { text: long, parameters: { truncation: false } });
    expect(refused.status).toBe(422);
  });

  it('refuses unknown strategies, and token-classification parameters on another task', async () => {
    const bad = await gateway.post('/serve/entities', {
      text: 'x',
      parameters: { aggregation_strategy: 'longest' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('aggregation_strategy');
    const topK = await gateway.post('/serve/entities', { text: 'x', parameters: { top_k: 2 } });
    expect(topK.status).toBe(400);
    const elsewhere = await gateway.post('/serve/sentiment', {
      text: 'x',
      parameters: { aggregation_strategy: 'simple' },
    });
    expect(elsewhere.status).toBe(400);
    expect(JSON.stringify(elsewhere.body)).toContain('applies to token-classification');
  });
});
