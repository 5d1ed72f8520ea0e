import { parseServerTiming } from '@modelgate/observability';
import { type PerfStep, summarizeStep } from './perf-stats.js';

/** A fixed set of 12–20-word English sentences, cycled through by the load. */
export const PERF_SENTENCES = [
  'The film starts slowly but the last hour is gripping, funny and surprisingly moving for everyone.',
  'I waited forty minutes for a cold pizza and the driver was rude when he finally arrived.',
  'This laptop keeps its charge all day and the keyboard feels great even after long sessions.',
  'The hotel room was clean and quiet, though breakfast ended far too early for most guests.',
  'Customer support solved my problem in five minutes and even followed up the next morning.',
  'The sequel repeats every joke from the original and forgets to give its characters anything new.',
  'Our guide knew every street of the old town and made the long walking tour fly by.',
  'The update broke my favourite feature and the app now crashes whenever I open the camera.',
];

/** How long a loop waits after a failed connection before trying again (no busy retry loop). */
const CONNECTION_RETRY_MS = 100;

/** Options of one step. */
export interface StepOptions {
  url: string;
  concurrency: number;
  durationMs: number;
  headers?: Record<string, string>;
  /** Serialized request bodies, cycled through; the PERF_SENTENCES as `{"text": …}` when absent. */
  bodies?: readonly string[];
}

const SENTENCE_BODIES = PERF_SENTENCES.map((text) => JSON.stringify({ text }));

/**
 * Runs `concurrency` closed loops of `POST <url>` with each body in turn (default `{"text": sentence}`) for `durationMs`,
 * timing each request and averaging the Server-Timing stages the gateway reports.
 */
export async function runPerfStep(options: StepOptions): Promise<PerfStep> {
  const latenciesUs: number[] = [];
  const errorStatuses: Record<string, number> = {};
  const stageSumsUs: Record<string, number> = {};
  const stageCounts: Record<string, number> = {};
  const started = performance.now();
  const stopAt = started + options.durationMs;
  const bodies = options.bodies ?? SENTENCE_BODIES;
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < stopAt) {
        const body = bodies[next++ % bodies.length];
        const sent = performance.now();
        let status: string;
        try {
          const response = await fetch(options.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...options.headers },
            body,
          });
          await response.arrayBuffer();
          status = String(response.status);
          if (response.ok) {
            latenciesUs.push((performance.now() - sent) * 1000);
            for (const [stage, ms] of parseServerTiming(response.headers.get('server-timing') ?? '')) {
              stageSumsUs[stage] = (stageSumsUs[stage] ?? 0) + ms * 1000;
              stageCounts[stage] = (stageCounts[stage] ?? 0) + 1;
            }
            continue;
          }
        } catch {
          status = 'connection';
        }
        errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
        if (status === 'connection') {
          await new Promise((resolve) =>
            setTimeout(resolve, Math.min(CONNECTION_RETRY_MS, Math.max(0, stopAt - performance.now()))),
          );
        }
      }
    }),
  );
  return summarizeStep({
    concurrency: options.concurrency,
    elapsedMs: performance.now() - started,
    latenciesUs,
    errorStatuses,
    stageSumsUs,
    stageCounts,
  });
}
