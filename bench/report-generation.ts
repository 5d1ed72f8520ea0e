/**
 * The results page's text-generation section: per concurrency, tokens/s and time to first token of
 * modelgate's continuous batching, one request at a time and static batching over the same
 * requests, then modelgate's ratios to the other two. Every cell is median (min–max) over the
 * interleaved rounds; ratios are taken within a round.
 */
import { type BenchResults, overRounds } from './bench-results.js';
import {
  GENERATION_MODES,
  type GenerationMode,
  type GenerationRound,
  type GenerationStepResult,
  type GenerationWorkerStats,
  generationStep,
} from './generation-results.js';
import { fmt, spreadCell, table } from './report-format.js';

const MODE_NAMES: Record<GenerationMode, string> = {
  modelgate: 'modelgate (continuous batching)',
  naive: 'naive transformers.js server (one at a time)',
  'one-at-a-time': 'one request at a time (raw)',
  static: 'static batching (raw)',
};

type Figure = (step: GenerationStepResult) => number;

const tokensPerSec: Figure = (s) => s.tokensPerSec;
const ttftP50: Figure = (s) => s.timeToFirstToken.p50;
const ttftP90: Figure = (s) => s.timeToFirstToken.p90;
const latencyP50: Figure = (s) => s.latency.p50;
/** Server CPU per generated token: the raw process, or modelgate's gateway + worker (registry left out). */
const cpuPerToken: Figure = (s) =>
  ((s.cpuMs.server ?? 0) + (s.cpuMs.gateway ?? 0) + (s.cpuMs.worker ?? 0)) / s.generatedTokens;

function cell(
  rounds: readonly GenerationRound[],
  mode: GenerationMode,
  c: number,
  figure: Figure,
  digits: number,
) {
  return spreadCell(
    overRounds(rounds, (r) => {
      const step = generationStep(r, mode, c);
      return step ? figure(step) : undefined;
    }),
    digits,
  );
}

function ratioCell(
  rounds: readonly GenerationRound[],
  c: number,
  reference: GenerationMode,
  figure: Figure,
): string {
  return spreadCell(
    overRounds(rounds, (r) => {
      const ours = generationStep(r, 'modelgate', c);
      const theirs = generationStep(r, reference, c);
      return ours && theirs && figure(theirs) > 0 ? figure(ours) / figure(theirs) : undefined;
    }),
    2,
    '×',
  );
}

const sum = (rounds: readonly GenerationRound[], mode: GenerationMode, c: number, pick: Figure) =>
  rounds.reduce((total, r) => {
    const step = generationStep(r, mode, c);
    return total + (step ? pick(step) : 0);
  }, 0);

/** One line per step with failed requests: why they failed. */
function failureLines(rounds: readonly GenerationRound[]): string[] {
  const lines = rounds.flatMap((round, index) =>
    round.steps.flatMap((step) =>
      Object.entries(step.failures ?? {}).map(
        ([reason, count]) => `- round ${index + 1}, ${step.mode} c=${step.concurrency}: ${count} × ${reason}`,
      ),
    ),
  );
  return lines.length > 0 ? ['', 'Failed requests:', '', ...lines] : [];
}

export function generationSection(results: BenchResults): string {
  const generation = results.generation;
  if (generation === undefined) return '';
  const { rounds, workload } = generation;
  const range = (r: { min: number; max: number; mean: number }) =>
    `${r.min}–${r.max} (mean ${fmt(r.mean, 1)})`;
  const rows = generation.steps.flatMap(({ concurrency: c }) =>
    GENERATION_MODES.map((mode) => [
      `c=${c}`,
      MODE_NAMES[mode],
      cell(rounds, mode, c, tokensPerSec, 1),
      cell(rounds, mode, c, ttftP50, 0),
      cell(rounds, mode, c, ttftP90, 0),
      cell(rounds, mode, c, latencyP50, 0),
      cell(rounds, mode, c, cpuPerToken, 2),
      String(sum(rounds, mode, c, (s) => s.failed)),
      String(sum(rounds, mode, c, (s) => s.shortRequests + (s.promptMismatches ?? 0))),
    ]),
  );
  return [
    '## Text generation (issue 17)',
    '',
    `\`${generation.fixture}\` (GPT-2 decoder with KV cache, random weights), greedy. The same requests served four ways ` +
      `on the same cores: modelgate (streaming \`POST /serve/<endpoint>\`, SSE; the worker's continuous batching with ` +
      `batching ${JSON.stringify(generation.batching)}: the deadline raised so that no slow request is cut short, as the ` +
      "raw loops have none), a naive server (`node:http` around transformers.js' `pipeline('text-generation')`, " +
      "one request at a time, each token streamed as an SSE event through the library's TextStreamer, library defaults), " +
      'and two raw onnxruntime-node greedy loops with a KV cache in ' +
      'a process of their own: one request at a time (FIFO), and static batching (whatever waits, up to c, becomes one ' +
      'left-padded batch that runs until its longest sequence ends). Requests: prompts of ' +
      `${range(workload.promptTokens)} tokens, max_new_tokens ${range(workload.maxNewTokens)}; every request generates ` +
      'its max_new_tokens unless it picks EOS first ("short" below). Each step: ' +
      `${generation.steps.map((s) => `${s.requests} requests at c=${s.concurrency}`).join(', ')}, from c closed-loop ` +
      'clients (each sends its next request when its last one ended); the first requests of the list, the same in ' +
      'every mode (a request count, not a duration: --duration and --warmup do not apply; each step follows ' +
      'a warm-up of requests with 4 new tokens: one per client, one in all for one-at-a-time). ' +
      'tokens/s = generated tokens ÷ (first request sent → last one ended). Time to first token (TTFT) ' +
      "runs from the client's send to the first SSE delta (raw: the pick of the first token), waiting for the " +
      `queue or the batch included. Server CPU: the raw process, or modelgate's gateway + worker, per generated token. ` +
      `${generation.intraOpThreads} intra-op threads in the worker and in raw, spinning off in both.`,
    '',
    table(
      [
        'c',
        'mode',
        'tokens/s',
        'TTFT p50 ms',
        'TTFT p90 ms',
        'request p50 ms',
        'server CPU ms per token',
        'failed',
        'short or mismatched',
      ],
      rows,
    ),
    ...failureLines(rounds),
    '',
    'modelgate ÷ the others, within each round (tokens/s: higher is better; TTFT: lower is better):',
    '',
    table(
      [
        'c',
        'tokens/s ÷ naive',
        'TTFT p50 ÷ naive',
        'tokens/s ÷ one-at-a-time',
        'tokens/s ÷ static',
        'TTFT p50 ÷ one-at-a-time',
        'TTFT p50 ÷ static',
        'TTFT p90 ÷ one-at-a-time',
        'TTFT p90 ÷ static',
      ],
      generation.steps.map(({ concurrency: c }) => [
        `c=${c}`,
        ratioCell(rounds, c, 'naive', tokensPerSec),
        ratioCell(rounds, c, 'naive', ttftP50),
        ratioCell(rounds, c, 'one-at-a-time', tokensPerSec),
        ratioCell(rounds, c, 'static', tokensPerSec),
        ratioCell(rounds, c, 'one-at-a-time', ttftP50),
        ratioCell(rounds, c, 'static', ttftP50),
        ratioCell(rounds, c, 'one-at-a-time', ttftP90),
        ratioCell(rounds, c, 'static', ttftP90),
      ]),
    ),
    ...workerTable(rounds, generation.steps),
  ].join('\n');
}

/** modelgate's worker over each step: how full its decode steps ran and where the model's time went. */
function workerTable(
  rounds: readonly GenerationRound[],
  steps: readonly { concurrency: number }[],
): string[] {
  const stat = (c: number, pick: (w: GenerationWorkerStats) => number, digits: number) =>
    spreadCell(
      overRounds(rounds, (r) => {
        const worker = generationStep(r, 'modelgate', c)?.worker;
        return worker ? pick(worker) : undefined;
      }),
      digits,
    );
  if (!rounds.some((r) => r.steps.some((s) => s.worker !== undefined))) return [];
  return [
    '',
    "modelgate's worker over each step (its /metrics): sequences per decode step, time per decode step and " +
      'per prefill, and the share of the step the model was running (prefill + decode time ÷ step duration):',
    '',
    table(
      ['c', 'sequences per decode step', 'decode step ms', 'prefills', 'prefill ms', 'model busy'],
      steps.map(({ concurrency: c }) => [
        `c=${c}`,
        stat(c, (w) => w.meanSequencesPerStep, 1),
        stat(c, (w) => w.meanDecodeStepMs, 1),
        stat(c, (w) => w.prefillRuns, 0),
        stat(c, (w) => w.meanPrefillMs, 1),
        stat(c, (w) => w.modelBusy, 2),
      ]),
    ),
  ];
}
