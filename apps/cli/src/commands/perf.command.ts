import { type Command, Option } from 'commander';
import { asArgParser, type ContextFactory } from '../cli-context.js';
import { CliFailure, UsageError } from '../cli-errors.js';
import { parseGatewayUrl, parseResourceName } from './parse-arguments.js';
import { type PerfStep, formatStep, parseConcurrencyRange } from '../perf/perf-stats.js';
import { parseDurationMs } from './duration-argument.js';
import { readInputData } from '../perf/input-data.js';
import { runPerfStep } from '../perf/run-perf-step.js';

/** `--duration`: any CLI duration longer than zero. */
function parsePerfDuration(text: string): number {
  const ms = parseDurationMs(text);
  if (ms <= 0) throw new UsageError(`--duration '${text}' must be longer than 0`);
  return ms;
}

/** The gateway perf drives when --gateway is not given. */
const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8080';

const usage =
  <T>(parse: (text: string) => T) =>
  (text: string): T => {
    try {
      return parse(text);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
  };

/** `connection ×3, 404 ×5` */
function describeErrors(statuses: Record<string, number>): string {
  const parts = Object.entries(statuses).map(([status, count]) =>
    status === 'connection' ? `no connection ×${count}` : `HTTP ${status} ×${count}`,
  );
  return parts.length > 0 ? parts.join(', ') : 'no request was sent';
}

/**
 * `modelgate perf <endpoint>`: a perf_analyzer-style concurrency sweep against a gateway's
 * POST /serve/<endpoint>, with the gateway's Server-Timing breakdown per step.
 */
export function registerPerfCommand(program: Command, contextOf: ContextFactory): void {
  program
    .command('perf')
    .argument('<endpoint>', 'endpoint to drive', asArgParser(parseResourceName))
    .description(
      'measure throughput and latency of an endpoint over a concurrency range (perf_analyzer style)',
    )
    // Each default is printed once, by commander, in the form the option takes.
    .addOption(
      new Option('--gateway <url>', 'gateway base URL')
        .argParser(asArgParser(parseGatewayUrl))
        .default(DEFAULT_GATEWAY_URL),
    )
    .addOption(
      new Option(
        '--concurrency-range <start:end:step>',
        'concurrency levels, linear like perf_analyzer; end is always measured, even off the step',
      )
        .argParser(asArgParser(usage(parseConcurrencyRange)))
        .default([1], '1'),
    )
    .addOption(
      new Option('--duration <time>', 'time per level, e.g. 30s or 2m')
        .argParser(asArgParser(parsePerfDuration))
        .default(10_000, '10s'),
    )
    .option(
      '--input-data <file>',
      'request bodies to send in turn: a JSON array of /serve bodies, or JSON Lines (default: built-in sentences as {"text": …})',
    )
    .action(
      async (
        endpoint: string,
        options: { gateway: string; concurrencyRange: number[]; duration: number; inputData?: string },
        command: Command,
      ) => {
        // perf talks to a gateway, never to the registry: a --registry given here would do nothing.
        if (command.parent?.getOptionValueSource('registry') === 'cli') {
          throw new UsageError('perf drives a gateway (--gateway), not the registry: drop --registry');
        }
        const { output } = contextOf(command);
        const bodies = options.inputData === undefined ? undefined : await readInputData(options.inputData);
        const url = `${options.gateway}/serve/${endpoint}`;
        const steps: PerfStep[] = [];
        for (const concurrency of options.concurrencyRange) {
          const step = await runPerfStep({
            url,
            concurrency,
            durationMs: options.duration,
            ...(bodies === undefined ? {} : { bodies }),
          });
          steps.push(step);
          if (!output.json) output.result(step, () => formatStep(step));
          // A level where nothing was answered measures nothing: stop the sweep and say why.
          if (step.requests - step.errors === 0) {
            if (output.json) output.result(steps, () => '');
            throw new CliFailure(
              `no request to ${url} succeeded at concurrency ${concurrency} ` +
                `(${describeErrors(step.errorStatuses)}): check --gateway and the endpoint name`,
            );
          }
        }
        if (output.json) output.result(steps, () => '');
      },
    );
}
