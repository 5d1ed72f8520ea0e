// Chunked prefill on the real decoder (tiny-gpt2 over onnxruntime): a prompt longer than
// WORKER_PREFILL_CHUNK_TOKENS is prefilled in slices, each extending its own cache, between the
// running batch's decode steps, and gives exactly the greedy tokens of a cache-free reference.
import { ensureFixture, getFixtureSpec } from '@modelgate/fixtures';
import { DecoderSession, type RunningWorker, startWorker } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAUSE, collect, follow, metricDelta, request } from './support/generation-stream.js';

const CHUNK = 8;
/** A 45-token prompt: slices of 8, 8, 8, 8, 8 and 5. */
const LONG = Array.from({ length: 45 }, (_, i) => 100 + ((i * 37) % 900));
const SHORT = [464, 2068, 7586, 21831];

describe('worker: chunked prefill of long prompts (WORKER_PREFILL_CHUNK_TOKENS, tiny-gpt2)', () => {
  let worker: RunningWorker;
  let reference: DecoderSession;

  beforeAll(async () => {
    const dir = await ensureFixture('tiny-gpt2');
    reference = await DecoderSession.open(dir, getFixtureSpec('tiny-gpt2'));
    worker = await startWorker(
      [
        {
          name: 'gpt',
          fixture: 'tiny-gpt2',
          task: 'text-generation',
          batching: { maxBatchSize: 4, maxQueueSize: 8 },
        },
      ],
      { WORKER_PREFILL_CHUNK_TOKENS: String(CHUNK) },
    );
  });

  afterAll(async () => {
    await worker?.stop();
    await reference?.release();
  });

  it('prefills a long prompt in slices and generates the greedy tokens of a cache-free reference', async () => {
    const expected = await reference.greedyUncached(LONG, 10);
    const before = await worker.metrics();
    const { tokens } = await collect(worker.client.stream('ModelGenerate', request('gpt', LONG, 10)));
    expect(tokens).toEqual(expected);
    const delta = metricDelta(before, await worker.metrics(), 'gpt');
    expect(delta('modelgate_generation_step_duration_seconds_count', { phase: 'prefill' })).toBe(
      Math.ceil(LONG.length / CHUNK),
    );
  });

  it('interleaves the slices with the decode steps of a running sequence, both keeping their greedy tokens', async () => {
    const [expectedShort, expectedLong] = [
      await reference.greedyUncached(SHORT, 16),
      await reference.greedyUncached(LONG, 4),
    ];
    const before = await worker.metrics();
    // The short sequence pauses after its first token until one sequence waits: the long one joins it.
    const arrivals: string[] = [];
    const shortStream = worker.client.stream('ModelGenerate', request('gpt', SHORT, 16), {
      metadata: { [PAUSE]: '1:1' },
    });
    shortStream.on('data', () => arrivals.push('short'));
    const short = follow(shortStream);
    await short.first;
    const longStream = worker.client.stream('ModelGenerate', request('gpt', LONG, 4));
    longStream.on('data', () => arrivals.push('long'));
    const long = collect(longStream);
    expect((await short.done).tokens).toEqual(expectedShort);
    expect((await long).tokens).toEqual(expectedLong);
    const delta = metricDelta(before, await worker.metrics(), 'gpt');
    const slices = Math.ceil(LONG.length / CHUNK);
    expect(delta('modelgate_generation_step_duration_seconds_count', { phase: 'prefill' })).toBe(1 + slices);
    // The short sequence got a token after each slice but the last, before the long one's first:
    // the slices did not hold it back until the whole prompt was in.
    expect(arrivals.indexOf('long')).toBeGreaterThanOrEqual(1 + (slices - 1));
  });
});
