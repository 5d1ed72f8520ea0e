import { parseArgs } from 'node:util';
import { type RegistryMode } from './control-plane.js';

/** Which measurements a run makes. */
export const SUITES = ['full', 'worker', 'gateway'] as const;

/** One of SUITES. */
export type Suite = (typeof SUITES)[number];

/** Settings of one `npm run bench`. */
export interface BenchOptions {
  suite: Suite;
  /** Measured seconds per step. @defaultValue 8 (2 with --quick) */
  durationS: number;
  /** Unmeasured seconds before each step, same load. @defaultValue 2 (0.5 with --quick) */
  warmupS: number;
  quick: boolean;
  /** Concurrency ladder of the HTTP comparison. */
  concurrencies: number[];
  /** Batch sizes of the raw session.run sweep. */
  batchSizes: number[];
  /** Requests of the fixed-size step that measures gateway CPU per request. */
  cpuRequests: number;
  /** GATEWAY_WORKERS of the modelgate ladder. @defaultValue auto (one event loop per core) */
  gatewayWorkers: string;
  /** ModelSpec.runtime.intraOpThreads for the worker and the raw baseline. @defaultValue 0 */
  intraOpThreads: number;
  /** ModelSpec.batching.maxBatchSize. @defaultValue 32 (the schema's default) */
  maxBatchSize: number;
  registry: RegistryMode;
  /** Directory for the .md, .json and .svg. */
  outDir: string;
}

const USAGE = `usage: npm run bench -- [--suite full|worker|gateway] [--duration <s>] [--quick]
  [--gateway-workers auto|<n>] [--intra-op-threads <n>] [--max-batch-size <n>]
  [--registry auto|off] [--out <dir>]`;

function positiveNumber(value: string | undefined, name: string, fallback: number, integer = false): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0 || (integer && !Number.isInteger(parsed))) {
    throw new Error(
      `--${name} must be a ${integer ? 'non-negative integer' : 'non-negative number'}\n${USAGE}`,
    );
  }
  return parsed;
}

/** Parses the command line (after `npm run bench --`). */
export function parseBenchOptions(argv: string[], defaultOutDir: string): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      suite: { type: 'string', default: 'full' },
      duration: { type: 'string' },
      quick: { type: 'boolean', default: false },
      'gateway-workers': { type: 'string', default: 'auto' },
      'intra-op-threads': { type: 'string' },
      'max-batch-size': { type: 'string' },
      registry: { type: 'string', default: 'auto' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const suite = values.suite as Suite;
  if (!SUITES.includes(suite)) throw new Error(`--suite must be one of ${SUITES.join(', ')}\n${USAGE}`);
  const registry = values.registry as RegistryMode;
  if (registry !== 'auto' && registry !== 'off') throw new Error(`--registry must be auto or off\n${USAGE}`);
  const gatewayWorkers = values['gateway-workers'];
  if (gatewayWorkers !== 'auto' && !/^[1-9][0-9]*$/.test(gatewayWorkers)) {
    throw new Error(`--gateway-workers must be auto or a positive integer\n${USAGE}`);
  }
  const quick = values.quick;
  return {
    suite,
    durationS: positiveNumber(values.duration, 'duration', quick ? 2 : 8),
    warmupS: quick ? 0.5 : 2,
    quick,
    concurrencies: [1, 8, 32, 128],
    batchSizes: [1, 2, 4, 8, 16, 32, 64],
    cpuRequests: quick ? 200 : 1000,
    gatewayWorkers,
    intraOpThreads: positiveNumber(values['intra-op-threads'], 'intra-op-threads', 0, true),
    maxBatchSize: Math.max(1, positiveNumber(values['max-batch-size'], 'max-batch-size', 32, true)),
    registry,
    outDir: values.out ?? defaultOutDir,
  };
}
