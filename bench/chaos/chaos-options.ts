import { parseArgs } from 'node:util';
import { DRILLS, DRILL_NAMES, type DrillName } from './drills.js';

/** Settings of one `npm run chaos`. */
export interface ChaosOptions {
  /** The fault drills to run, in DRILL_NAMES order. @defaultValue all eight */
  drills: DrillName[];
  /** Minutes of the soak, run after the fault drills; null: no soak. @defaultValue null (30 when `--only` names it) */
  soakMinutes: number | null;
  /** How long Redis, Postgres and the registry stay down, in seconds. @defaultValue 30 */
  downSeconds: number;
  /** Directory for the .md and .json. @defaultValue bench/results */
  outDir: string;
}

/** Concurrent closed-loop clients of every drill's load (issue 12: c=128). */
export const CONCURRENCY = 128;

export const DEFAULT_DOWN_SECONDS = 30;

/** The soak's name in --only: a drill that faults nothing and runs for --soak-minutes. */
export const SOAK = 'soak';

export const DEFAULT_SOAK_MINUTES = 30;

export const CHAOS_USAGE = `usage: npm run chaos -- [--only <drill>[,<drill>...]] [--down-seconds <n>] [--soak-minutes <n>] [--out <dir>]

Starts its own Postgres cluster and redis-server, a registry on them, two workers and two gateways
(minilm-sst2, two versions behind a 90/10 canary route), and runs fault drills under ${CONCURRENCY}
closed-loop clients. Prints, per drill, requests sent and failed, the longest stall and whether a
config change made during the fault reached every node; writes bench/results/<date>-<host>-chaos.md
and .json. Exits 1 if any drill failed a request or lost its config change.

  --only <drills>       comma-separated, any of: ${DRILL_NAMES.join(', ')}, ${SOAK} (default: all but
                        ${SOAK}, in that order); ${SOAK} runs last: mixed traffic (classification, QA,
                        generation, images) with a config change every minute, every process's RSS,
                        heap and file descriptors sampled
  --down-seconds <n>    how long worker-hang keeps the worker stopped, redis-down, postgres-down
                        and registry-down keep the part down and disk-full keeps the registry's
                        artifact cache full (it needs root), an integer from 1 to 600 (default
                        ${DEFAULT_DOWN_SECONDS}); the other process drills always start the replacement 10 s after the fault
  --soak-minutes <n>    how long the ${SOAK} lasts, an integer from 3 to 600 (default ${DEFAULT_SOAK_MINUTES}); only with --only ${SOAK}
  --out <dir>           where the results go (default bench/results)
  --help                this text`;

function parseDrills(list: string): { drills: DrillName[]; soak: boolean } {
  const named = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (named.length === 0) throw new Error(`--only needs at least one drill\n${CHAOS_USAGE}`);
  for (const name of named) {
    if (name !== SOAK && !(DRILL_NAMES as readonly string[]).includes(name)) {
      throw new Error(`--only: unknown drill '${name}' (drills: ${DRILL_NAMES.join(', ')}, ${SOAK})`);
    }
  }
  return { drills: DRILL_NAMES.filter((drill) => named.includes(drill)), soak: named.includes(SOAK) };
}

function parseSoakMinutes(value: string | undefined, soak: boolean): number | null {
  if (value === undefined) return soak ? DEFAULT_SOAK_MINUTES : null;
  if (!soak) throw new Error(`--soak-minutes applies to the ${SOAK} only: add it to --only`);
  const minutes = Number(value);
  if (!/^[0-9]+$/.test(value) || minutes < 3 || minutes > 600) {
    throw new Error(`--soak-minutes must be an integer from 3 to 600\n${CHAOS_USAGE}`);
  }
  return minutes;
}

/** Parses the command line (after `npm run chaos --`); `help` when --help was asked for. */
export function parseChaosOptions(argv: string[], defaultOutDir: string): ChaosOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      'down-seconds': { type: 'string' },
      'soak-minutes': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const { drills, soak } =
    values.only === undefined ? { drills: [...DRILL_NAMES], soak: false } : parseDrills(values.only);
  const soakMinutes = parseSoakMinutes(values['soak-minutes'], soak);
  let downSeconds = DEFAULT_DOWN_SECONDS;
  if (values['down-seconds'] !== undefined) {
    downSeconds = Number(values['down-seconds']);
    if (!/^[0-9]+$/.test(values['down-seconds']) || downSeconds < 1 || downSeconds > 600) {
      throw new Error(`--down-seconds must be an integer from 1 to 600\n${CHAOS_USAGE}`);
    }
    const outages = drills.filter((drill) => DRILLS[drill].duration === 'outage');
    if (outages.length === 0) {
      const timed = DRILL_NAMES.filter((drill) => DRILLS[drill].duration === 'outage');
      throw new Error(
        `--down-seconds changes nothing in --only ${drills.join(',')} (it applies to ${timed.join(', ')})`,
      );
    }
  }
  if (values.out !== undefined && values.out.trim() === '') throw new Error('--out needs a directory');
  return { drills, soakMinutes, downSeconds, outDir: values.out ?? defaultOutDir };
}
