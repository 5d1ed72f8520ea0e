import { availableParallelism } from 'node:os';
import { parseArgs } from 'node:util';
import { REGISTRY_MODES, type RegistryMode } from './control-plane.js';

/**
 * What a run can measure. `shared`: raw session.run, the naive server, modelgate and the worker
 * alone on shared cores; `worker`: raw and the worker alone only; `gateway`: gateway CPU and
 * GATEWAY_WORKERS 1 vs 2; `pinned`: the pinned split; `mixed`: mixed-length padding waste;
 * `profile`: where the CPU goes (--cpu-prof) at c=1 and c=128; `qa`: question answering over long
 * contexts (windows batched across requests) against raw session.run on the same windows;
 * `generation`: text generation, modelgate's continuous batching against one request at a time and
 * static batching on raw onnxruntime (tokens/s, time to first token); `image`: image classification
 * of raw JPEG bodies against raw session.run on their pixel values (images/s, gateway CPU);
 * `prefill`: running sequences' inter-token latency while 2048-token prompts arrive, chunked
 * prefill against whole prompts (prefill-suite.ts).
 */
export const SUITES = [
  'shared',
  'worker',
  'gateway',
  'pinned',
  'mixed',
  'profile',
  'qa',
  'generation',
  'prefill',
  'image',
] as const;

/** One of SUITES. */
export type Suite = (typeof SUITES)[number];

/** What `--suite full` (the default) runs. */
export const FULL_SUITES: readonly Suite[] = ['shared', 'pinned', 'mixed'];

/** Settings of one `npm run bench`. */
export interface BenchOptions {
  /** The suites to run, in SUITES order. */
  suites: Suite[];
  /** Interleaved repeats of every measured comparison. @defaultValue 3 (2 with --quick) */
  repeats: number;
  /** Measured seconds per step. @defaultValue 5 (1.5 with --quick) */
  durationS: number;
  /** Unmeasured seconds before each step, same load. @defaultValue 1.5 (0.5 with --quick) */
  warmupS: number;
  /**
   * Requests each server serves before its first measured step, unmeasured: the shared suite's and
   * the profiled stack's at c=1, the pinned split's at its steps' concurrency. V8 optimises a
   * function only after thousands of calls: at c=1 (each request its own gRPC call) a fresh gateway
   * and worker run their per-call path unoptimised for the first few thousand requests, about 2 ms
   * a request slower than a server in service, and on the pinned split's one core a fresh worker
   * also spends a share of it compiling. @defaultValue 6000 (300 with --quick)
   */
  jitWarmupRequests: number;
  quick: boolean;
  /** Concurrency curve of the HTTP comparison. @defaultValue [1, 2, 4, 8, 16, 32, 64, 128] ([1, 8, 128] with --quick) */
  concurrencies: number[];
  /** Batch sizes of the raw session.run sweeps. @defaultValue [1, 8, 32, 64] ([1, 32] with --quick) */
  batchSizes: number[];
  /** Requests of the fixed-size step that measures gateway CPU per request (gateway suite). */
  cpuRequests: number;
  /** GATEWAY_WORKERS of the shared-cores stack and the profiled one. @defaultValue 1 (one event loop, as standalone runs it) */
  gatewayWorkers: string;
  /** ModelSpec.runtime.intraOpThreads off the pinned split (which always runs 1). @defaultValue 0 */
  intraOpThreads: number;
  /**
   * ModelSpec.runtime.instances of the shared deployment (and of those built from it: gateway,
   * mixed, profile, qa); the pinned split always runs 1, generation and image their own.
   * @defaultValue os.availableParallelism(): one session per core
   */
  instances: number;
  /**
   * ModelSpec.batching.maxBatchSize of every deployment (image has its own); undefined: each suite's
   * default, 8 for the encoder deployment (run-bench.ts says why) and 32 for generation.
   */
  maxBatchSize: number | undefined;
  /** The decoder fixture of the generation suite. @defaultValue distilgpt2-like */
  generationFixture: string;
  registry: RegistryMode;
  /** Directory for the .md, .json and .svg. */
  outDir: string;
}

const USAGE = `usage: npm run bench -- [--suite full|<suite>[,<suite>...]] [--profile] [--quick]
  [--repeats <n>] [--duration <s>] [--warmup <s>] [--jit-warmup <requests>]
  [--gateway-workers <n>|auto (default 1)]
  [--intra-op-threads <n>] [--instances <n> (default: one per core)] [--max-batch-size <n>]
  [--generation-fixture <fixture>] [--registry auto|live|off] [--out <dir>]
suites: ${SUITES.join(', ')}; full = ${FULL_SUITES.join(',')}`;

/** The suites whose servers serve BenchOptions.jitWarmupRequests before their first measured step. */
export const JIT_WARMUP_SUITES: readonly Suite[] = ['shared', 'worker', 'pinned', 'profile'];

/** Which suites each option changes; naming an option none of the chosen suites reads is an error. */
const OPTION_USERS: Record<string, readonly Suite[]> = {
  repeats: ['shared', 'worker', 'gateway', 'pinned', 'mixed', 'qa', 'generation', 'prefill', 'image'],
  'jit-warmup': JIT_WARMUP_SUITES,
  'gateway-workers': ['shared', 'profile', 'qa', 'generation', 'image'],
  'intra-op-threads': [
    'shared',
    'worker',
    'gateway',
    'mixed',
    'profile',
    'qa',
    'generation',
    'prefill',
    'image',
  ],
  // The pinned split runs one instance on its one core; generation and image deploy their own model.
  instances: ['shared', 'worker', 'gateway', 'mixed', 'profile', 'qa'],
  // The image suite's batching is its own (image-suite.ts).
  'max-batch-size': ['shared', 'worker', 'gateway', 'pinned', 'mixed', 'profile', 'qa', 'generation'],
  'generation-fixture': ['generation'],
};

function numberOption(
  value: string | undefined,
  name: string,
  fallback: number,
  minimum: number,
  integer: boolean,
) {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < minimum || (integer && !Number.isInteger(parsed))) {
    throw new Error(`--${name} must be ${integer ? 'an integer' : 'a number'} ≥ ${minimum}\n${USAGE}`);
  }
  return parsed;
}

function parseSuites(list: string, profile: boolean): Suite[] {
  const named = list.split(',').map((name) => name.trim());
  const chosen = new Set<Suite>();
  for (const name of named) {
    if (name === 'full') FULL_SUITES.forEach((suite) => chosen.add(suite));
    else if ((SUITES as readonly string[]).includes(name)) chosen.add(name as Suite);
    else throw new Error(`--suite: unknown suite '${name}'\n${USAGE}`);
  }
  if (profile) chosen.add('profile');
  // `shared` measures everything `worker` does, in the same rounds.
  if (chosen.has('shared')) chosen.delete('worker');
  return SUITES.filter((suite) => chosen.has(suite));
}

/** Parses the command line (after `npm run bench --`). */
export function parseBenchOptions(argv: string[], defaultOutDir: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      suite: { type: 'string', default: 'full' },
      profile: { type: 'boolean', default: false },
      repeats: { type: 'string' },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      'jit-warmup': { type: 'string' },
      quick: { type: 'boolean', default: false },
      'gateway-workers': { type: 'string' },
      'intra-op-threads': { type: 'string' },
      instances: { type: 'string' },
      'max-batch-size': { type: 'string' },
      'generation-fixture': { type: 'string' },
      registry: { type: 'string', default: 'auto' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const suites = parseSuites(values.suite, values.profile);
  for (const [option, users] of Object.entries(OPTION_USERS)) {
    if (
      values[option as keyof typeof values] !== undefined &&
      !suites.some((suite) => users.includes(suite))
    ) {
      throw new Error(
        `--${option} changes nothing in --suite ${suites.join(',')} (it applies to ${users.join(', ')})`,
      );
    }
  }
  const registry = values.registry as RegistryMode;
  if (!REGISTRY_MODES.includes(registry))
    throw new Error(`--registry must be one of ${REGISTRY_MODES.join(', ')}\n${USAGE}`);
  // One event loop, as standalone mode runs the gateway beside the worker: on cores the model
  // shares, a second loop only takes CPU from it (the gateway suite compares 1 and 2).
  const gatewayWorkers = values['gateway-workers'] ?? '1';
  if (gatewayWorkers !== 'auto' && !/^[1-9][0-9]*$/.test(gatewayWorkers)) {
    throw new Error(`--gateway-workers must be auto or a positive integer\n${USAGE}`);
  }
  const quick = values.quick;
  return {
    suites,
    repeats: numberOption(values.repeats, 'repeats', quick ? 2 : 3, 1, true),
    durationS: numberOption(values.duration, 'duration', quick ? 1.5 : 5, 0.5, false),
    warmupS: numberOption(values.warmup, 'warmup', quick ? 0.5 : 1.5, 0, false),
    jitWarmupRequests: numberOption(values['jit-warmup'], 'jit-warmup', quick ? 300 : 6000, 0, true),
    quick,
    concurrencies: quick ? [1, 8, 128] : [1, 2, 4, 8, 16, 32, 64, 128],
    batchSizes: quick ? [1, 32] : [1, 8, 32, 64],
    cpuRequests: quick ? 200 : 1000,
    gatewayWorkers,
    intraOpThreads: numberOption(values['intra-op-threads'], 'intra-op-threads', 0, 0, true),
    instances: numberOption(values.instances, 'instances', availableParallelism(), 1, true),
    maxBatchSize:
      values['max-batch-size'] === undefined
        ? undefined
        : numberOption(values['max-batch-size'], 'max-batch-size', 0, 1, true),
    generationFixture: values['generation-fixture'] ?? 'distilgpt2-like',
    registry,
    outDir: values.out ?? defaultOutDir,
  };
}
