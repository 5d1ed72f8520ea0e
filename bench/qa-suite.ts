/**
 * Question answering over long contexts (issue 14): every request asks about a context of about
 * 700 tokens, which the gateway cuts into windows of 384 tokens (stride 128) and sends as the rows
 * of ONE ModelInfer; the worker's batcher merges the windows of concurrent requests. Compared with
 * raw session.run on the same windows at comparable batches: one request's windows per run (what
 * c=1 sends) and four requests' windows per run (what c=4 can queue). Interleaved rounds.
 */
import { defaultDocStride, loadTokenizerFromDir, questionWindowLength } from '@modelgate/processing';
import { ensureFixture } from '@modelgate/fixtures';
import { type BenchOptions } from './bench-options.js';
import { type QaResult, type QaRound } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { type StepResult } from './load-step.js';
import { type ModelgateStack, startModelgate } from './modelgate-stack.js';
import { type QaWorkload, qaBodies, qaWindows } from './qa-bodies.js';
import { SENTENCES } from './sentences.js';
import { measureModelgateStep, measureRawLimit } from './suites.js';

/** The bench's question-answering model: minilm's shape with a span head. */
export const QA_FIXTURE = 'minilm-squad';
/** Contexts of 40 sentences: about 700 tokens, three windows. */
const WORKLOAD: QaWorkload = { contextSentences: 40 };
/** Concurrencies of modelgate's steps: c × windows per request rows can queue. */
const QA_CONCURRENCIES = [1, 4, 8];
/** Raw batches of 1 and of 4 requests' windows: what modelgate's batches hold at c=1 and c=4. */
const RAW_REQUESTS_PER_RUN = [1, 4];
/** Each step lasts at least this long: a request of three 384-token windows takes ~0.5 s here. */
const MIN_STEP_S = 8;

/** The QA deployment beside the sentiment one: its own model, worker group and endpoint. */
export function qaDeployment(shared: Deployment): Deployment {
  return {
    ...shared,
    fixture: QA_FIXTURE,
    model: 'minilm-qa',
    workerGroup: 'qa',
    endpoint: 'qa',
    task: 'question-answering',
  };
}

export async function runQaSuite(
  options: BenchOptions,
  plane: ControlPlane,
  shared: Deployment,
): Promise<QaResult> {
  const fixtureDir = await ensureFixture(QA_FIXTURE);
  const tokenizer = await loadTokenizerFromDir(fixtureDir);
  const bodies = qaBodies(SENTENCES, WORKLOAD);
  const rows = qaWindows(tokenizer, bodies);
  const windowsPerRequest = rows.length / bodies.length;
  const perRequest = Math.round(windowsPerRequest);
  const windowTokens = questionWindowLength(tokenizer);
  const meanContextTokens =
    bodies.reduce((sum, body) => sum + tokenizer.tokenize(body.context).length, 0) / bodies.length;
  const concurrencies = options.quick ? QA_CONCURRENCIES.slice(0, 2) : QA_CONCURRENCIES;
  // Raw runs no bigger batches than the deployment's worker may.
  const maxRows = shared.batching.maxBatchSize;
  if (typeof maxRows !== 'number') throw new Error('the shared deployment has no batching.maxBatchSize');
  const batchSizes = RAW_REQUESTS_PER_RUN.map((n) => Math.min(n * perRequest, maxRows));
  const stepOptions = { ...options, durationS: Math.max(options.durationS, MIN_STEP_S) };
  process.stdout.write(
    `question answering: contexts of ${meanContextTokens.toFixed(0)} tokens → ${windowsPerRequest.toFixed(2)} ` +
      `windows of ${windowTokens} tokens per request; raw session.run at ${batchSizes.join(' and ')} rows per ` +
      `run, modelgate at c=${concurrencies.join(', ')}; ${stepOptions.durationS} s steps, ${options.repeats} rounds\n`,
  );
  let stack: ModelgateStack | undefined;
  try {
    stack = await startModelgate(plane, qaDeployment(shared), {
      gatewayWorkers: options.gatewayWorkers,
      warmUpBody: bodies[0],
    });
    const rounds: QaRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const raw = await measureRawLimit(stepOptions, fixtureDir, {
        batchSizes: [...new Set(batchSizes)],
        intraOpThreads: options.intraOpThreads,
        instances: shared.instances,
        label: '(a) raw session.run (windows)',
        questionAnswering: WORKLOAD,
      });
      const modelgate: StepResult[] = [];
      for (const c of concurrencies) {
        modelgate.push(
          await measureModelgateStep(stepOptions, stack, c, {
            system: 'modelgate (qa)',
            questionAnswering: WORKLOAD,
          }),
        );
      }
      rounds.push({ raw, modelgate });
    }
    return {
      fixture: QA_FIXTURE,
      bodies: bodies.length,
      meanContextTokens,
      windowTokens,
      docStride: defaultDocStride(windowTokens),
      windowsPerRequest,
      rounds,
    };
  } finally {
    await stack?.stop();
  }
}
