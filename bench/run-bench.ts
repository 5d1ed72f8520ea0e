/**
 * `npm run bench`: modelgate against the onnxruntime limit and a naive server (issue 8), the
 * worker alone (issue 3) and the gateway's cost (issue 4), on minilm-sst2. Benchmarks are not
 * tests: nothing here runs in `npm test`. Writes bench/results/<date>-<host>.{md,json,svg}.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, hostname, loadavg } from 'node:os';
import { join } from 'node:path';
import { ensureFixture } from '@modelgate/testing';
import { type BenchOptions, parseBenchOptions } from './bench-options.js';
import { type BenchResults, checkTargets } from './bench-results.js';
import { BENCH_DIR, REPO_ROOT } from './child-process.js';
import { type Deployment } from './control-plane.js';
import { type ModelgateStack, startModelgate } from './modelgate-stack.js';
import { waitForQuietMachine } from './process-cpu.js';
import { renderChartSvg } from './report-chart.js';
import { renderMarkdown } from './report-markdown.js';
import {
  measureGatewayCost,
  measureModelgate,
  measureModelgateStep,
  measureNaive,
  measureRawLimit,
  measureWorkerOnly,
} from './suites.js';

const FIXTURE = 'minilm-sst2';

/** The measured tree's commit (read-only git calls), or undefined outside a checkout. */
function gitCommit(): string | undefined {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'apps', 'libs') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted changes in apps/ or libs/' : ''}`;
  } catch {
    return undefined;
  }
}

async function onnxruntimeVersion(): Promise<string> {
  const manifest = join(REPO_ROOT, 'node_modules', 'onnxruntime-node', 'package.json');
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
}

function deploymentOf(options: BenchOptions): Deployment {
  return {
    fixture: FIXTURE,
    model: 'minilm',
    endpoint: 'sentiment',
    batching: { maxBatchSize: options.maxBatchSize },
    intraOpThreads: options.intraOpThreads,
    instances: 1,
  };
}

async function runSuites(options: BenchOptions, results: BenchResults, fixtureDir: string): Promise<void> {
  const { suite } = options;
  const rawBatchSizes = suite === 'gateway' ? [1] : options.batchSizes;
  results.raw = await measureRawLimit(options, fixtureDir, rawBatchSizes);
  if (suite === 'full') results.naive = await measureNaive(options, fixtureDir);

  process.stdout.write('starting modelgate: control plane, worker, gateway\n');
  const stack: ModelgateStack = await startModelgate(results.meta.deployment, {
    gatewayWorkers: options.gatewayWorkers,
    registry: options.registry,
  });
  results.meta.controlPlane = { via: stack.config.via, note: stack.config.note };
  process.stdout.write(`  control plane: ${stack.config.note}\n`);
  try {
    if (suite === 'full') {
      results.modelgate = {
        gatewayWorkers: options.gatewayWorkers,
        steps: await measureModelgate(options, stack),
      };
    }
    if (suite !== 'gateway') results.workerOnly = await measureWorkerOnly(options, stack, fixtureDir);
    if (suite !== 'worker') {
      const c1 =
        results.modelgate?.steps.find((s) => s.load.concurrency === 1) ??
        (await measureModelgateStep(options, stack, 'modelgate', 1));
      const rawBatch1P50Ms = results.raw.batches.find((b) => b.batchSize === 1)?.latency.p50 ?? NaN;
      results.gateway = {
        ...(await measureGatewayCost(options, stack, ['1', '2'])),
        c1: { step: c1, rawBatch1P50Ms },
      };
    }
  } finally {
    await stack.stop();
  }
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
    },
  };
  process.stdout.write(
    `modelgate bench: suite ${options.suite}, ${options.durationS} s per step, ` +
      `${results.meta.cores} cores, load average ${results.meta.loadAverage.start.toFixed(2)}\n`,
  );
  const fixtureDir = await ensureFixture(FIXTURE);
  const other = await waitForQuietMachine(60_000);
  process.stdout.write(`other processes use ${other.toFixed(2)} cores as the run starts\n`);
  await runSuites(options, results, fixtureDir);
  results.meta.finishedAt = new Date().toISOString();
  results.meta.loadAverage.end = loadavg()[0] ?? NaN;
  results.targets = checkTargets(results);

  await mkdir(outDir, { recursive: true });
  // <date>-<host> for the full suite; a partial suite gets its name appended so it never replaces a full run.
  const name = `${results.meta.startedAt.slice(0, 10)}-${results.meta.host}${options.suite === 'full' ? '' : `-${options.suite}`}`;
  const base = join(outDir, name);
  const markdown = renderMarkdown(results, `${name}.svg`);
  await writeFile(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(`${base}.svg`, renderChartSvg(results));
  await writeFile(`${base}.md`, markdown);
  process.stdout.write(`\n${markdown}\nwrote ${base}.md, .json, .svg\n`);
}

await main();
