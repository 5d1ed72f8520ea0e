import {
  DEFAULT_ROLLOUT_INTERVAL_SECONDS,
  DEFAULT_ROLLOUT_MIN_REQUESTS,
  DEFAULT_ROLLOUT_STEPS,
  type StartRolloutRequest,
} from '@modelgate/contracts';
import { type Command } from 'commander';
import { asArgParser, type ContextFactory } from '../cli-context.js';
import { CliFailure, UsageError } from '../cli-errors.js';
import { parseDurationMs } from './duration-argument.js';
import { parseModelRef, parsePositiveInt, parseResourceName } from './parse-arguments.js';
import { watchRollout } from './rollout-watch.js';

interface RolloutStatusOptions {
  watch?: boolean;
  interval?: number;
}

/** How often `rollout status --watch` reads the rollout when --interval is not given. */
const DEFAULT_WATCH_INTERVAL_MS = 2000;
import {
  formatDuration,
  parseDuration,
  parseMilliseconds,
  parsePercent,
  parseRate,
  parseSteps,
} from './rollout-arguments.js';
import { renderRollout } from './rollout-render.js';

interface RolloutStartOptions {
  to: string;
  steps?: number[];
  interval?: number;
  maxErrorRate?: number;
  maxP99Ms?: number;
  minAgreement?: number;
  minRequests?: number;
  shadowFirst?: number;
  shadowPercent?: number;
}

/** The hand-made moves: what each does, for its help line. */
const MOVES = {
  pause: 'hold the routes where they are; no window is judged until resumed',
  resume: 'carry on from where it was paused, with a new window at the same step',
  abort: 'end it and put the previous routes back at once',
  promote: 'end it now with the candidate as the only primary (skips the remaining steps)',
} as const;

/** `modelgate rollout start|status|pause|resume|abort|promote`. */
export function registerRolloutCommands(program: Command, contextOf: ContextFactory): void {
  const rollout = program
    .command('rollout')
    .description(
      "move an endpoint's traffic to a new model version step by step; the registry judges each " +
        "step's window on the candidate's own numbers (error rate, p99, agreement with the primary, " +
        'volume) and promotes, holds or rolls back by itself',
    );

  rollout
    .command('start')
    .argument('<endpoint>', 'the endpoint to roll out', asArgParser(parseResourceName))
    .description(
      'start a rollout: warm-up (workers load the candidate), then an optional shadow phase, then one ' +
        'window per step. A window with a breach rolls back at once; one with too little traffic holds ' +
        'the step. Needs Redis (the gateways report the numbers in their heartbeats).',
    )
    .requiredOption('--to <name:version>', 'the candidate: a READY model version', asArgParser(modelRef))
    .option(
      '--steps <list>',
      `canary percentages, ascending, ending at 100 (default ${DEFAULT_ROLLOUT_STEPS.join(',')})`,
      asArgParser(parseSteps),
    )
    .option(
      '--interval <duration>',
      `length of each step's window: 30s, 2m, 1h (default ${formatDuration(DEFAULT_ROLLOUT_INTERVAL_SECONDS)})`,
      asArgParser(parseDuration),
    )
    .option(
      '--max-error-rate <share>',
      'largest share of candidate requests failing with a 5xx: 0.01 or 1% (default 0.01)',
      asArgParser(parseRate),
    )
    .option(
      '--max-p99-ms <ms>',
      'largest candidate p99 latency in the gateway (default: not checked)',
      asArgParser(parseMilliseconds),
    )
    .option(
      '--min-agreement <share>',
      "smallest share of mirrored rows whose top label (or generated text) matches the primary's (default 0.95; classification and generation endpoints)",
      asArgParser(parseRate),
    )
    .option(
      '--min-requests <n>',
      `requests (or mirrored rows) a window needs to be judged; fewer hold the step unless no more could undo a breach (default ${DEFAULT_ROLLOUT_MIN_REQUESTS})`,
      asArgParser(parsePositiveInt),
    )
    .option(
      '--shadow-first <duration>',
      'mirror requests to the candidate this long before its first live step (default: no shadow phase)',
      asArgParser(parseDuration),
    )
    .option(
      '--shadow-percent <percent>',
      'percent of requests mirrored during --shadow-first (default 100)',
      asArgParser(parsePercent),
    )
    .action(async (endpoint: string, options: RolloutStartOptions, command: Command) => {
      if (options.shadowPercent !== undefined && options.shadowFirst === undefined) {
        throw new UsageError('--shadow-percent applies to the shadow phase: give --shadow-first too');
      }
      if (options.minAgreement !== undefined && options.shadowFirst === undefined) {
        throw new UsageError(
          '--min-agreement is checked on mirrored rows, which only the shadow phase makes: give --shadow-first too',
        );
      }
      const { client, output } = contextOf(command);
      const request: StartRolloutRequest = {
        to: options.to,
        ...(options.steps === undefined ? {} : { steps: options.steps }),
        ...(options.interval === undefined ? {} : { intervalSeconds: options.interval }),
        ...(options.maxErrorRate === undefined ? {} : { maxErrorRate: options.maxErrorRate }),
        ...(options.maxP99Ms === undefined ? {} : { maxP99Ms: options.maxP99Ms }),
        ...(options.minAgreement === undefined ? {} : { minAgreement: options.minAgreement }),
        ...(options.minRequests === undefined ? {} : { minRequests: options.minRequests }),
        ...(options.shadowFirst === undefined ? {} : { shadowFirstSeconds: options.shadowFirst }),
        ...(options.shadowPercent === undefined ? {} : { shadowPercent: options.shadowPercent }),
      };
      const started = await client.startRollout(endpoint, request);
      output.result(started, () => renderRollout(started));
      output.note(`follow it with: modelgate rollout status ${endpoint}`);
    });

  rollout
    .command('status')
    .argument('<endpoint>', 'the endpoint', asArgParser(parseResourceName))
    .description(
      "the endpoint's latest rollout: state, step, the running window's numbers against the thresholds, and its decision history",
    )
    .option('--watch', 'keep printing as the rollout moves, until it ends; exit 1 unless it completed')
    .option(
      '--interval <duration>',
      'with --watch, how often to read the rollout (e.g. 2s, 500ms)',
      asArgParser(parseDurationMs),
    )
    .action(async (endpoint: string, options: RolloutStatusOptions, command: Command) => {
      const { client, output } = contextOf(command);
      if (options.interval !== undefined && options.watch !== true) {
        throw new UsageError('--interval paces --watch: give --watch too, or drop --interval');
      }
      if (options.watch !== true) {
        const view = await client.getRollout(endpoint);
        output.result(view, () => renderRollout(view));
        return;
      }
      if (output.json) {
        throw new UsageError(
          `--watch prints the rollout as it moves; -o ${output.format} is one answer: drop one of them`,
        );
      }
      let printed = 0;
      const final = await watchRollout({
        read: () => client.getRollout(endpoint),
        sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        intervalMs: options.interval ?? DEFAULT_WATCH_INTERVAL_MS,
        // A blank line between the views printed as it moves.
        onChange: (view) => output.result(view, () => `${printed++ > 0 ? '\n' : ''}${renderRollout(view)}`),
      });
      if (final.state !== 'COMPLETED') {
        throw new CliFailure(
          `the rollout of ${endpoint} ended ${final.state.toLowerCase().replace('_', ' ')}`,
        );
      }
    });

  for (const [move, description] of Object.entries(MOVES) as [keyof typeof MOVES, string][]) {
    rollout
      .command(move)
      .argument('<endpoint>', 'the endpoint whose rollout is in progress', asArgParser(parseResourceName))
      .description(description)
      .action(async (endpoint: string, _options: unknown, command: Command) => {
        const { client, output } = contextOf(command);
        const view = await client.moveRollout(endpoint, move);
        output.result(view, () => renderRollout(view));
      });
  }
}

function modelRef(text: string): string {
  parseModelRef(text);
  return text;
}
