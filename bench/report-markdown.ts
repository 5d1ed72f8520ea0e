/**
 * The results page: the run, the issue 11 targets, then each suite's tables (shared cores, the
 * pinned split, mixed lengths, where the CPU goes), then costs per request and the chart.
 */
import { JIT_WARMUP_SUITES } from './bench-options.js';
import { type BenchResults } from './bench-results.js';
import { cpuSection, gatewaySection, timeSection } from './report-costs.js';
import { fmt, table } from './report-format.js';
import { generationSection } from './report-generation.js';
import { prefillSection } from './report-prefill.js';
import { imageSection } from './report-image.js';
import { mixedSection, pinnedSection } from './report-modes.js';
import { profileSection } from './report-profile.js';
import { qaSection } from './report-qa.js';
import { ladderSection, rawSection, workerSection } from './report-shared.js';

function header(results: BenchResults): string {
  const { meta } = results;
  const o = meta.options;
  // Generation, prefill and image runs have their own model and deployment (their sections say which).
  const minilm = o.suites.some((suite) => !['generation', 'prefill', 'image'].includes(suite));
  return [
    `# modelgate bench: ${meta.startedAt.slice(0, 10)} on ${meta.host}`,
    '',
    `- Code: ${meta.commit ?? 'unknown commit'}.`,
    `- Machine: ${meta.cpuModel}, ${meta.cores} cores, no GPU; Node ${meta.node}; onnxruntime-node ${meta.onnxruntime}.`,
    `- Load average (1 min): ${fmt(meta.loadAverage.start)} at start, ${fmt(meta.loadAverage.end)} at end. ` +
      'On shared cores everything (load generator included) shares them; "other" below is CPU used by processes outside the bench.',
    `- Run: suites \`${o.suites.join(', ')}\`; ` +
      (o.suites.every((suite) => suite === 'profile')
        ? 'one profiled pass (the profile suite takes no repeats); '
        : `**${o.repeats} interleaved rounds** (each round measures every system once, in turn; ` +
          `ratios are taken within a round, then shown as median (min–max) over the rounds); `) +
      (o.suites.some((suite) => suite !== 'generation' && suite !== 'prefill')
        ? `${o.durationS} s measured per step after ${o.warmupS} s warm-up`
        : 'fixed request counts per step') +
      jitWarmupNote(o) +
      `${o.quick ? ' (--quick: a smoke run, not for comparison)' : ''}; ${meta.startedAt} → ${meta.finishedAt ?? '?'}.`,
    ...(minilm ? minilmLines(results) : []),
    `- Control plane: ${meta.controlPlane?.note ?? 'n/a'}.`,
    '- "other cores": CPU used by processes outside the bench during a step (this machine is shared). A step where ' +
      'it exceeded 0.25 cores was measured once more after a quiet moment, keeping the quieter attempt (marked †).',
  ].join('\n');
}

/** Says what the JIT warm-up did (BenchOptions.jitWarmupRequests), where a suite ran one. */
function jitWarmupNote(o: BenchResults['meta']['options']): string {
  const requests = o.jitWarmupRequests;
  if (requests === 0 || !o.suites.some((suite) => JIT_WARMUP_SUITES.includes(suite))) return '';
  return (
    `; before its first measured step each server served ${requests} requests, unmeasured (a JIT ` +
    'warm-up: V8 optimises the per-call path only after thousands of calls): at c=1 in the shared and ' +
    "profile suites, at the steps' concurrency in the pinned split"
  );
}

/** The header's lines about minilm and its shared-cores deployment. */
function minilmLines(results: BenchResults): string[] {
  const { meta } = results;
  const d = meta.deployment;
  const o = meta.options;
  return [
    `- Model: \`${d.fixture}\` (6 layers, hidden 384, 12 heads; random weights), 40 fixed English sentences of 12–20 words` +
      `${results.shared?.rounds[0] ? ` (mean ${fmt(results.shared.rounds[0].raw.meanTokens, 1)} tokens with [CLS]/[SEP])` : ''}; ` +
      'the mixed-length workload has its own texts.',
    `- Deployment (shared cores): intraOpThreads ${d.intraOpThreads} (0 = the worker's default, cores ÷ instances), instances ` +
      `${d.instances} (--instances; default one per core), batching ${JSON.stringify(d.batching)} (other fields: schema defaults), GATEWAY_WORKERS ${o.gatewayWorkers}; ` +
      `WORKER_SOLO_SESSION ${meta.soloSession ?? 'not recorded'} (with intraOpThreads 0 and 2 or more instances, a session with a thread per core for batches that find the model idle); ` +
      "intra-op spinning: the worker's instances never spin; its solo session, and raw's one session where it stands for that session, spin within a run and stop when it returns (session.force_spinning_stop); the naive server runs onnxruntime with " +
      "transformers.js's defaults (spinning on).",
  ];
}

function targetsSection(results: BenchResults): string {
  // Nothing to say when no suite measured any of them (e.g. --suite generation).
  if (!results.targets?.some((t) => t.met !== undefined)) return '';
  const verdict = (met: boolean | undefined) => (met === undefined ? 'n/a' : met ? 'met' : '**missed**');
  return [
    '## Issue 11 targets',
    '',
    'Median over the rounds (min–max); a miss says by how much. "Where the CPU goes" (with `--profile`) says what is left.',
    '',
    table(
      ['target', 'measured', 'result', 'missed by'],
      results.targets.map((t) => [t.target, t.measured, verdict(t.met), t.shortBy ?? '']),
    ),
  ].join('\n');
}

/** The results page. */
export function renderMarkdown(results: BenchResults, chartFile: string): string {
  const sections = [
    header(results),
    targetsSection(results),
    rawSection(results),
    ladderSection(results),
    timeSection(results),
    workerSection(results),
    gatewaySection(results),
    pinnedSection(results),
    mixedSection(results),
    qaSection(results),
    generationSection(results),
    prefillSection(results),
    imageSection(results),
    profileSection(results),
    cpuSection(results),
    results.shared?.rounds.some((r) => r.naive ?? r.modelgate)
      ? `![concurrency curve](${chartFile.replace(/\.svg$/, '-curve.svg')})\n\n![throughput vs p99](${chartFile})`
      : '',
  ];
  return `${sections.filter((s) => s.length > 0).join('\n\n')}\n`;
}
