import { parseArgs } from 'node:util';
import { DRILLS, DRILL_NAMES, type DrillName } from './drills.js';

/** Settings of one `npm run chaos`. */
export interface ChaosOptions {
  /** The drills to run, in DRILL_NAMES order. @defaultValue all seven */
  drills: DrillName[];
  /** How long Redis, Postgres and the registry stay down, in seconds. @defaultValue 30 */
  downSeconds: number;
  /** Directory for the .md and .json. @defaultValue bench/results */
  outDir: string;
}

/** Concurrent closed-loop clients of every drill's load (issue 12: c=128). */
export const CONCURRENCY = 128;

export const DEFAULT_DOWN_SECONDS = 30;

export const CHAOS_USAGE = `usage: npm run chaos -- [--only <drill>[,<drill>...]] [--down-seconds <n>] [--out <dir>]

Starts its own Postgres cluster and redis-server, a registry on them, two workers and two gateways
(minilm-sst2, two versions behind a 90/10 canary route), and runs fault drills under ${CONCURRENCY}
closed-loop clients. Prints, per drill, requests sent and failed, the longest stall and whether a
config change made during the fault reached every node; writes bench/results/<date>-<host>-chaos.md
and .json. Exits 1 if any drill failed a request or lost its config change.

  --only <drills>       comma-separated, any of: ${DRILL_NAMES.join(', ')} (default: all, in that order)
  --down-seconds <n>    how long worker-hang keeps the worker stopped and redis-down, postgres-down
                        and registry-down keep the part down, an integer from 1 to 600 (default
                        ${DEFAULT_DOWN_SECONDS}); the other process drills always start the replacement 10 s after the fault
  --out <dir>           where the results go (default bench/results)
  --help                this text`;

function parseDrills(list: string): DrillName[] {
  const named = list
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name.length > 0);
  if (named.length === 0) throw new Error(`--only needs at least one drill\n${CHAOS_USAGE}`);
  for (const name of named) {
    if (!(DRILL_NAMES as readonly string[]).includes(name)) {
      throw new Error(`--only: unknown drill '${name}' (drills: ${DRILL_NAMES.join(', ')})`);
    }
  }
  return DRILL_NAMES.filter((drill) => named.includes(drill));
}

/** Parses the command line (after `npm run chaos --`); `help` when --help was asked for. */
export function parseChaosOptions(argv: string[], defaultOutDir: string): ChaosOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      only: { type: 'string' },
      'down-seconds': { type: 'string' },
      out: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return 'help';
  const drills = values.only === undefined ? [...DRILL_NAMES] : parseDrills(values.only);
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
  return { drills, downSeconds, outDir: values.out ?? defaultOutDir };
}
