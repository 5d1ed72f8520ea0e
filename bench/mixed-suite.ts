/**
 * Mixed lengths (issue 11): texts of 8–256 tokens at c=64 straight at a worker over gRPC, against
 * two workers of the same model — modelgate's length-aware batching (batching.maxPaddingRatio at
 * its default) and pad-to-longest (maxPaddingRatio so high that no length grouping happens: FIFO
 * batches padded to their longest row). Padding waste = tokens computed ÷ real tokens, from the
 * worker's modelgate_batch_tokens_total counters over each step. Rounds alternate the two.
 */
import { loadTokenizerFromDir } from '@modelgate/processing';
import { type BenchOptions } from './bench-options.js';
import { type MixedResult, type MixedRound, paddingWaste } from './bench-results.js';
import { type ControlPlane, type Deployment } from './control-plane.js';
import { buildTextsOfLengths, mixedTokenLengths } from './mixed-texts.js';
import { type WorkerNode, startWorkerNode } from './modelgate-stack.js';
import { measureWorkerStep } from './suites.js';

/** maxPaddingRatio of the pad-to-longest worker: far above any ratio 8–256 tokens can produce (32). */
export const PAD_TO_LONGEST_RATIO = 1000;
const MIXED_CONCURRENCY = 64;

/** The shared deployment with length grouping switched off: its own model and worker group, no endpoint. */
export function padToLongestDeployment(shared: Deployment): Deployment {
  const { endpoint: _endpoint, ...rest } = shared;
  return {
    ...rest,
    model: `${shared.model}-padded`,
    workerGroup: 'padded',
    batching: { ...shared.batching, maxPaddingRatio: PAD_TO_LONGEST_RATIO },
  };
}

const wasteText = (value: number | undefined): string =>
  value === undefined ? 'n/a (no modelgate_batch_tokens_total)' : `${value.toFixed(2)}×`;

export async function runMixedSuite(
  options: BenchOptions,
  plane: ControlPlane,
  deployment: Deployment,
  fixtureDir: string,
): Promise<MixedResult> {
  const tokenizer = await loadTokenizerFromDir(fixtureDir);
  const lengths = mixedTokenLengths();
  const texts = buildTextsOfLengths(tokenizer, lengths);
  const meanTokens = lengths.reduce((sum, n) => sum + n, 0) / lengths.length;
  process.stdout.write(
    `mixed lengths: ${texts.length} texts of ${Math.min(...lengths)}–${Math.max(...lengths)} tokens ` +
      `(mean ${meanTokens.toFixed(1)}), c=${MIXED_CONCURRENCY} at the worker, ${options.repeats} rounds\n`,
  );
  const padded = padToLongestDeployment(deployment);
  let modelgate: WorkerNode | undefined;
  let padToLongest: WorkerNode | undefined;
  try {
    modelgate = await startWorkerNode(plane, deployment);
    padToLongest = await startWorkerNode(plane, padded);
    const registry = plane.registryPid === undefined ? {} : { registryPid: plane.registryPid };
    const rounds: MixedRound[] = [];
    for (let index = 0; index < options.repeats; index++) {
      process.stdout.write(`round ${index + 1}/${options.repeats}\n`);
      const ours = await measureWorkerStep(options, modelgate, fixtureDir, MIXED_CONCURRENCY, {
        system: 'modelgate (length-aware)',
        texts,
        ...registry,
      });
      const theirs = await measureWorkerStep(options, padToLongest, fixtureDir, MIXED_CONCURRENCY, {
        system: 'pad-to-longest',
        texts,
        ...registry,
      });
      process.stdout.write(
        `  padding waste: modelgate ${wasteText(paddingWaste(ours))}, pad-to-longest ${wasteText(paddingWaste(theirs))}\n`,
      );
      rounds.push({ modelgate: ours, padToLongest: theirs });
    }
    const ratio = deployment.batching.maxPaddingRatio;
    return {
      concurrency: MIXED_CONCURRENCY,
      texts: {
        count: texts.length,
        minTokens: Math.min(...lengths),
        maxTokens: Math.max(...lengths),
        meanTokens,
      },
      maxPaddingRatio: {
        modelgate: typeof ratio === 'number' ? ratio : 'default',
        padToLongest: PAD_TO_LONGEST_RATIO,
      },
      rounds,
    };
  } finally {
    await modelgate?.stop();
    await padToLongest?.stop();
  }
}
