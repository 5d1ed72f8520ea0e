/**
 * `npm run bench`: modelgate against the onnxruntime limit and a naive server on shared cores, the
 * pinned split, mixed-length padding waste and, with --profile, where the CPU goes (issue 11), on
 * minilm-sst2. Every comparison runs in interleaved rounds. Benchmarks are not tests: nothing
 * here runs in `npm test`. Writes bench/results/<date>-<host>[-<suites>].{md,json,svg}.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFixture } from '@modelgate/fixtures';
import { type BenchOptions, FULL_SUITES, parseBenchOptions } from './bench-options.js';
import { type BenchResults } from './bench-results.js';
import { checkTargets } from './bench-targets.js';
import { BENCH_DIR } from './child-process.js';
import { type Deployment, startControlPlane } from './control-plane.js';
import { runGatewaySuite } from './gateway-suite.js';
import { runGenerationSuite } from './generation-suite.js';
import { runPrefillSuite } from './prefill-suite.js';
import { runImageSuite } from './image-suite.js';
import { runMixedSuite } from './mixed-suite.js';
import { pinnedDeployment, runPinnedSuite } from './pinned-suite.js';
import { waitForQuietMachine } from './process-cpu.js';
import { runProfileSuite } from './profile-suite.js';
import { runQaSuite } from './qa-suite.js';
import { renderChartSvg } from './report-chart.js';
import { renderCurveSvg } from './report-curve.js';
import { renderMarkdown } from './report-markdown.js';
import { gitCommit, onnxruntimeVersion } from './run-facts.js';
import { runSharedSuite } from './shared-suite.js';

const FIXTURE = 'minilm-sst2';
/**
 * The encoder deployment's maxBatchSize unless --max-batch-size says otherwise: the batch size raw
 * session.run does best at on the reference machine (2 cores: batch 8 in the worker's layout, one
 * single-thread session per core; bigger batches cost more per row there). A deployment sets it to
 * its hardware's best batch, as the README's sizing section says; comparing against raw's best
 * batch at another size would measure the hardware's batch curve, not the serving path.
 */
const ENCODER_MAX_BATCH_SIZE = 8;

function deploymentOf(options: BenchOptions): Deployment {
  return {
    fixture: FIXTURE,
    model: 'minilm',
    workerGroup: 'default',
    endpoint: 'sentiment',
    batching: { maxBatchSize: options.maxBatchSize ?? ENCODER_MAX_BATCH_SIZE },
    intraOpThreads: options.intraOpThreads,
    instances: options.instances,
  };
}

async function runSuites(options: BenchOptions, results: BenchResults, fixtureDir: string): Promise<void> {
  const { suites } = options;
  const scratch = await mkdtemp(join(tmpdir(), 'modelgate-bench-'));
  const plane = await startControlPlane(scratch, options.registry);
  results.meta.controlPlane = { via: plane.via, note: plane.note };
  process.stdout.write(`control plane: ${plane.note}\n`);
  const deployment = results.meta.deployment;
  try {
    if (suites.includes('shared') || suites.includes('worker')) {
      results.shared = await runSharedSuite(
        options,
        plane,
        deployment,
        fixtureDir,
        suites.includes('shared'),
      );
    }
    if (suites.includes('gateway')) results.gateway = await runGatewaySuite(options, plane, deployment);
    if (suites.includes('pinned')) {
      results.pinned = await runPinnedSuite(options, plane, pinnedDeployment(deployment), fixtureDir);
    }
    if (suites.includes('mixed')) results.mixed = await runMixedSuite(options, plane, deployment, fixtureDir);
    if (suites.includes('qa')) results.qa = await runQaSuite(options, plane, deployment);
    if (suites.includes('generation')) results.generation = await runGenerationSuite(options, plane);
    if (suites.includes('prefill')) results.prefill = await runPrefillSuite(options, plane);
    if (suites.includes('image')) results.image = await runImageSuite(options, plane);
    if (suites.includes('profile')) {
      // Profiles outlive the run, for a closer look (e.g. in Chrome DevTools).
      const profileDir = await mkdtemp(join(tmpdir(), 'modelgate-bench-profiles-'));
      results.profile = await runProfileSuite(options, plane, deployment, profileDir);
    }
  } finally {
    await plane.stop();
    await rm(scratch, { recursive: true, force: true });
  }
}

/** `full` when the run is exactly the default suites, else the suites joined (`pinned+mixed`). */
function suitesName(options: BenchOptions): string {
  const full = FULL_SUITES.every((suite) => options.suites.includes(suite));
  const extra = options.suites.filter((suite) => !FULL_SUITES.includes(suite));
  if (full) return ['full', ...extra].join('+');
  return options.suites.join('+');
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), join(BENCH_DIR, 'results'));
  const { outDir, ...recorded } = options;
  const results: BenchResults = {
    meta: {
      startedAt: new Date().toISOString(),
      host: hostname(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      cores: availableParallelism(),
      node: process.version,
      onnxruntime: await onnxruntimeVersion(),
      commit: gitCommit(),
      loadAverage: { start: loadavg()[0] ?? NaN },
      options: recorded,
      deployment: deploymentOf(options),
      // The workers inherit the bench's environment: an A/B of the solo session sets it there.
      soloSession: process.env.WORKER_SOLO_SESSION ?? 'unset (on)',
    },
  };
  process.stdout.write(
    `modelgate bench: ${suitesName(options)}, ${options.repeats} rounds, ${options.durationS} s per step after ` +
      `${options.warmupS} s warm-up, ${results.meta.cores} cores, load average ${results.meta.loadAverage.start.toFixed(2)}\n`,
  );
  const fixtureDir = await ensureFixture(FIXTURE);
  const other = await waitForQuietMachine(60_000);
  process.stdout.write(`other processes use ${other.toFixed(2)} cores as the run starts\n`);
  await runSuites(options, results, fixtureDir);
  results.meta.finishedAt = new Date().toISOString();
  results.meta.loadAverage.end = loadavg()[0] ?? NaN;
  results.targets = checkTargets(results);

  await mkdir(outDir, { recursive: true });
  // <date>-<host> for the full suite; other runs get their suites appended so they never replace a full run.
  const suites = suitesName(options);
  const name = `${results.meta.startedAt.slice(0, 10)}-${results.meta.host}${suites === 'full' ? '' : `-${suites}`}`;
  const base = join(outDir, name);
  const markdown = renderMarkdown(results, `${name}.svg`);
  await writeFile(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(`${base}.svg`, renderChartSvg(results));
  const curve = renderCurveSvg(results);
  if (curve !== undefined) await writeFile(`${base}-curve.svg`, curve);
  await writeFile(`${base}.md`, markdown);
  process.stdout.write(`\n${markdown}\nwrote ${base}.md, .json, .svg${curve ? ', -curve.svg' : ''}\n`);
}

await main();
