/**
 * `npm run chaos` (issue 12): the fault drills under load. Starts its own Postgres cluster and
 * redis-server (the shared ones are never touched), a registry on them, two workers and two
 * gateways as deployed, then runs each drill (run-drill.ts) under 128 closed-loop clients and
 * restores the whole fleet before the next. Writes bench/results/<date>-<host>-chaos.{md,json}
 * (a partial run gets its drills in the name) and exits 1 when a drill failed a request or lost
 * its config change. Not part of `npm test`; build first (`npm run build`).
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, hostname, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureFixture } from '@modelgate/fixtures';
import { GATEWAY_MAIN, WORKER_MAIN } from '@modelgate/testing';
import { BENCH_DIR, killChildren } from '../child-process.js';
import { REGISTRY_MAIN } from '../registry-control-plane.js';
import { gitCommit, onnxruntimeVersion } from '../run-facts.js';
import {
  CHAOS_USAGE,
  CONCURRENCY,
  type ChaosOptions,
  DEFAULT_DOWN_SECONDS,
  parseChaosOptions,
} from './chaos-options.js';
import { type ChaosResults, renderChaosMarkdown, renderDrillTable } from './chaos-report.js';
import { type ChaosStack, DEPLOYMENT, startChaosStack } from './chaos-stack.js';
import { CanaryWeights } from './config-change.js';
import { diskFullRefusal } from './disk-full.js';
import { DRILLS, DRILL_NAMES } from './drills.js';
import { runDrill } from './run-drill.js';
import { runSoak } from './run-soak.js';
import { SOAK_DEPLOYMENTS } from './soak-mix.js';

const FLEET =
  'own Postgres 15 cluster and own redis-server; registry on them; 2 workers (one intra-op thread each) and 2 gateways ' +
  '(one event loop each, GATEWAY_SHUTDOWN_DELAY_MS 5000: readiness 503 for 5 s after SIGTERM, then drain) ' +
  'following the registry (REGISTRY_URL, Redis announcements, heartbeats, worker discovery; default intervals); ' +
  'minilm-sst2 as minilm:1 and minilm:2 behind endpoint `sentiment`, 90/10 canary route; the config change is a ' +
  'canary weight change (PUT /v1/endpoints/sentiment/routes), followed to each node by the revision in its /health/ready';

const LOAD =
  `${CONCURRENCY} closed-loop clients in a process of their own, POST /serve/sentiment with one 12–20 word sentence each; ` +
  'like a Kubernetes Service they send only to gateways whose /health/ready answered 200 at the last poll (every 500 ms, ' +
  '1 s probe timeout), ' +
  'alternating; no retries; with no gateway ready a client counts one failure and waits for the next poll. ' +
  'Longest stall: the longest interval, from the end of the warm-up to the end of the load, with no request answered 200';

function parseOrExit(argv: string[]): ChaosOptions {
  try {
    const options = parseChaosOptions(argv, join(BENCH_DIR, 'results'));
    if (options !== 'help') return options;
    process.stdout.write(`${CHAOS_USAGE}\n`);
    process.exit(0);
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
}

/** `<date>-<host>-chaos` for the full default run; other runs say what they ran, so they never replace it. */
function resultName(results: ChaosResults, options: ChaosOptions): string {
  const base = `${results.meta.startedAt.slice(0, 10)}-${results.meta.host}-chaos`;
  const all = options.drills.length === DRILL_NAMES.length;
  const drills =
    all && options.soakMinutes === null
      ? []
      : [
          [...options.drills, ...(options.soakMinutes === null ? [] : [`soak${options.soakMinutes}m`])].join(
            '+',
          ),
        ];
  const down = options.downSeconds === DEFAULT_DOWN_SECONDS ? [] : [`down${options.downSeconds}s`];
  return [base, ...drills, ...down].join('-');
}

const message = (error: unknown) => (error instanceof Error ? error.message.slice(0, 500) : String(error));

async function runDrills(stack: ChaosStack, options: ChaosOptions, results: ChaosResults): Promise<void> {
  const weights = new CanaryWeights();
  for (const name of options.drills) {
    process.stdout.write(`\n${name}: ${DRILLS[name].fault}\n`);
    let result;
    try {
      result = await runDrill(stack, DRILLS[name], options.downSeconds, weights);
    } catch (error) {
      // The load itself failed (its process died): no figures to report for this drill.
      results.aborted = `${name} could not run: ${message(error)}`;
      return;
    }
    results.drills.push(result);
    process.stdout.write(`${renderDrillTable([result])}\n`);
    try {
      await stack.restore();
    } catch (error) {
      results.aborted = `the fleet did not come back after ${name}: ${message(error)}`;
      return;
    }
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const options = parseOrExit(argv);
  const refusal = options.drills.includes('disk-full') ? diskFullRefusal() : undefined;
  if (refusal !== undefined) {
    const others = options.drills.filter((drill) => drill !== 'disk-full');
    const instead = others.length > 0 ? `, or leave it out: --only ${others.join(',')}` : '';
    process.stderr.write(`${refusal}. Run as root${instead}\n`);
    process.exit(2);
  }
  for (const main of [REGISTRY_MAIN, GATEWAY_MAIN, WORKER_MAIN]) {
    if (!existsSync(main)) throw new Error(`${main} is not built: run \`npm run build\` first`);
  }
  const logDir = await mkdtemp(join(tmpdir(), 'modelgate-chaos-logs-'));
  const results: ChaosResults = {
    meta: {
      startedAt: new Date().toISOString(),
      host: hostname(),
      cpuModel: cpus()[0]?.model ?? 'unknown',
      cores: availableParallelism(),
      node: process.version,
      onnxruntime: await onnxruntimeVersion(),
      commit: gitCommit(),
      loadAverage: { start: loadavg()[0] ?? NaN },
      command: `npm run chaos${argv.length > 0 ? ` -- ${argv.join(' ')}` : ''}`,
      drills: options.drills,
      downSeconds: options.downSeconds,
      concurrency: CONCURRENCY,
      deployment: DEPLOYMENT,
      fleet: FLEET,
      load: LOAD,
      logDir,
    },
    drills: [],
    passed: false,
  };
  process.stdout.write(
    `modelgate chaos: ${[...options.drills, ...(options.soakMinutes === null ? [] : [`soak (${options.soakMinutes} min)`])].join(', ')}; ` +
      `outages ${options.downSeconds} s; c=${CONCURRENCY}; load average ${results.meta.loadAverage.start.toFixed(2)}\n`,
  );
  await ensureFixture(DEPLOYMENT.fixture);
  const soaking = options.soakMinutes !== null;
  const scratch = await mkdtemp(join(tmpdir(), 'modelgate-chaos-'));
  let stack: ChaosStack | undefined;
  const interrupted = () => {
    process.stderr.write('\ninterrupted: stopping the load and the fleet\n');
    killChildren();
    void (stack?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  try {
    process.stdout.write('starting Postgres, Redis, the registry, 2 workers and 2 gateways…\n');
    stack = await startChaosStack(scratch, soaking ? SOAK_DEPLOYMENTS : []);
    await runDrills(stack, options, results);
    if (options.soakMinutes !== null && results.aborted === undefined) {
      process.stdout.write(
        `\nsoak: ${options.soakMinutes} min of mixed traffic, a config change every minute\n`,
      );
      results.soak = await runSoak(stack, options.soakMinutes, scratch);
    }
  } finally {
    process.off('SIGINT', interrupted);
    await stack?.saveLogs(logDir).catch(() => undefined);
    await stack?.stop();
    await rm(scratch, { recursive: true, force: true });
  }
  results.meta.finishedAt = new Date().toISOString();
  results.meta.loadAverage.end = loadavg()[0] ?? NaN;
  results.passed =
    results.aborted === undefined &&
    results.drills.length === options.drills.length &&
    results.drills.every((drill) => drill.passed) &&
    (options.soakMinutes === null || results.soak?.passed === true);

  await mkdir(options.outDir, { recursive: true });
  const base = join(options.outDir, resultName(results, options));
  const markdown = renderChaosMarkdown(results);
  await writeFile(`${base}.json`, `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(`${base}.md`, markdown);
  process.stdout.write(`\n${markdown}\nwrote ${base}.md and .json; process logs in ${logDir}\n`);
  process.exitCode = results.passed ? 0 : 1;
}

await main();
