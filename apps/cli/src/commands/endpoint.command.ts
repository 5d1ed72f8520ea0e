import {
  DEFAULT_STICKY_HEADER,
  type EndpointView,
  MODEL_TASKS,
  type ModelTask,
  type Route,
} from '@modelgate/contracts';
import { type Command, Option } from 'commander';
import {
  asArgParser,
  type ContextFactory,
  withListTable,
  withNameOutput,
  withWideColumns,
} from '../cli-context.js';
import { UsageError } from '../cli-errors.js';
import { formatDetails, formatTable } from '../output/table.js';
import { collectPair, parseSettings, settingsKeys, settingsUpdate } from './endpoint-settings.js';
import { warnAboutWorkerGroups } from './fleet-warnings.js';
import { parseModelRef, parsePositiveInt, parseResourceName } from './parse-arguments.js';

interface EndpointAddOptions {
  model: string;
  task?: ModelTask;
  maxTokens?: number;
  timeoutMs?: number;
  preprocessing?: string[];
  postprocessing?: string[];
  generation?: string[];
}

interface EndpointSetOptions {
  preprocessing?: string[];
  postprocessing?: string[];
  generation?: string[];
  /** `none` clears it (commander stores a parser's null as ''). */
  timeoutMs?: number | 'none';
  stickyHeader?: string;
}

const PREPROCESSING_HELP = `an input limit, KEY=VALUE (repeatable): ${settingsKeys('preprocessing').join(', ')}`;
const POSTPROCESSING_HELP = `an answer option, KEY=VALUE (repeatable): ${settingsKeys('postprocessing').join(', ')}`;
const GENERATION_HELP = `a decoding default of a text-generation endpoint, under each request's and over the model's generation_config.json, KEY=VALUE (repeatable): ${settingsKeys('generation').join(', ')}`;

/** `none` (back to the default) or a positive integer. */
function parseTimeoutOrNone(text: string): number | 'none' {
  return text === 'none' ? 'none' : parsePositiveInt(text);
}

/** An option's value with `none` as null: the PATCH body's "back to the default". */
function noneAsNull<T>(value: T | 'none'): T | null {
  return value === 'none' ? null : value;
}

/** `modelgate endpoint add|set|list|show|remove`. */
export function registerEndpointCommands(program: Command, contextOf: ContextFactory): void {
  const endpoint = program
    .command('endpoint')
    .description('create, change, list, inspect and remove endpoints');

  withNameOutput(endpoint.command('add'))
    .argument('<name>', 'endpoint name: clients call POST /serve/<name>', asArgParser(parseResourceName))
    .description('create an endpoint (POST /serve/<name>) serving one READY model')
    .requiredOption('--model <name:version>', 'the model serving 100% of traffic', asArgParser(validModelRef))
    .addOption(new Option('--task <task>', "the endpoint's task (default: the model's)").choices(MODEL_TASKS))
    .option(
      '--max-tokens <n>',
      'token limit per input (default: the model maximum)',
      asArgParser(parsePositiveInt),
    )
    .option(
      '--timeout-ms <ms>',
      "request deadline in ms (default: the model's)",
      asArgParser(parsePositiveInt),
    )
    .option('--preprocessing <key=value>', PREPROCESSING_HELP, collectPair)
    .option('--postprocessing <key=value>', POSTPROCESSING_HELP, collectPair)
    .option('--generation <key=value>', GENERATION_HELP, collectPair)
    .action(async (name: string, options: EndpointAddOptions, command: Command) => {
      const { client, output } = contextOf(command);
      const preprocessing = {
        ...parseSettings('preprocessing', options.preprocessing ?? [], { allowNull: false }),
        ...(options.maxTokens === undefined ? {} : { maxTokens: options.maxTokens }),
      };
      const postprocessing = parseSettings('postprocessing', options.postprocessing ?? [], {
        allowNull: false,
      });
      const generation = parseSettings('generation', options.generation ?? [], { allowNull: false });
      const task = options.task ?? (await client.getModel(parseModelRef(options.model))).task;
      const created = await client.createEndpoint({
        name,
        task,
        model: options.model,
        ...(Object.keys(preprocessing).length === 0 ? {} : { preprocessing }),
        ...(Object.keys(postprocessing).length === 0 ? {} : { postprocessing }),
        ...(Object.keys(generation).length === 0 ? {} : { generation }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
      output.result(created, () => renderEndpoint(created));
      await warnAboutWorkerGroups(client, output, [parseModelRef(options.model)]);
    });

  withNameOutput(endpoint.command('set'))
    .argument('<name>', 'endpoint name', asArgParser(parseResourceName))
    .description(
      "change an endpoint's limits and options; keys not given keep their value, KEY=null puts one back to its default",
    )
    .option('--preprocessing <key=value>', PREPROCESSING_HELP, collectPair)
    .option('--postprocessing <key=value>', POSTPROCESSING_HELP, collectPair)
    .option('--generation <key=value>', GENERATION_HELP, collectPair)
    .option(
      '--timeout-ms <ms>',
      "request deadline in ms, or none for the model's",
      asArgParser(parseTimeoutOrNone),
    )
    .option(
      '--sticky-header <header>',
      'request header pinning a client to one route, or none for x-modelgate-route-key',
    )
    .action(async (name: string, options: EndpointSetOptions, command: Command) => {
      const { client, output } = contextOf(command);
      const update = {
        ...settingsUpdate(options.preprocessing, options.postprocessing, options.generation),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: noneAsNull(options.timeoutMs) }),
        ...(options.stickyHeader === undefined ? {} : { stickyHeader: noneAsNull(options.stickyHeader) }),
      };
      if (Object.keys(update).length === 0) {
        throw new UsageError(
          'endpoint set: nothing to change; give --preprocessing, --postprocessing, --generation, --timeout-ms or --sticky-header',
        );
      }
      const updated = await client.updateEndpoint(name, update);
      output.result(updated, () => renderEndpoint(updated));
    });

  withListTable(withNameOutput(withWideColumns(endpoint.command('list'))))
    .description('list endpoints and their routes')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const endpoints = await client.listEndpoints();
      output.result(endpoints, (wide) =>
        formatTable(
          endpoints,
          [
            { header: 'ENDPOINT', cell: (e) => e.name },
            { header: 'TASK', cell: (e) => e.task },
            { header: 'ROUTES', cell: (e) => describeRoutes(e.routes) },
            {
              header: 'TIMEOUT',
              cell: (e) => (e.timeoutMs === null ? '-' : `${e.timeoutMs}ms`),
              align: 'right',
            },
            { header: 'MAX TOKENS', cell: (e) => String(e.preprocessing.maxTokens ?? '-'), wide: true },
            { header: 'STICKY HEADER', cell: (e) => e.stickyHeader ?? DEFAULT_STICKY_HEADER, wide: true },
            { header: 'UPDATED', cell: (e) => e.updatedAt, wide: true },
          ],
          { empty: '(no endpoints)', wide, headers: output.headers },
        ),
      );
    });

  withNameOutput(endpoint.command('show'))
    .argument('<name>', 'endpoint name', asArgParser(parseResourceName))
    .description('show one endpoint: routes, limits and options')
    .action(async (name: string, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const found = await client.getEndpoint(name);
      output.result(found, () => renderEndpoint(found));
    });

  endpoint
    .command('remove')
    .argument('<name>', 'endpoint name', asArgParser(parseResourceName))
    .description('delete an endpoint')
    .action(async (name: string, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      await client.removeEndpoint(name);
      output.result(undefined, () => `removed endpoint ${name}`);
    });
}

function validModelRef(text: string): string {
  parseModelRef(text);
  return text;
}

/** `sst2:1 90% primary, sst2:2 10% canary`. */
export function describeRoutes(routes: readonly Route[]): string {
  if (routes.length === 0) return '-';
  return routes.map((route) => `${route.model} ${route.weight}% ${route.role}`).join(', ');
}

/** An endpoint's details, then its routes as a table. */
export function renderEndpoint(endpoint: EndpointView): string {
  const pre = endpoint.preprocessing;
  const post = Object.entries(endpoint.postprocessing).filter(([, value]) => value !== undefined);
  const details = formatDetails([
    ['endpoint', endpoint.name],
    ['task', endpoint.task],
    [
      'preprocessing',
      `max input chars ${pre.maxInputChars}, max tokens ${pre.maxTokens ?? 'model maximum'}, ` +
        `truncation ${pre.truncation ? 'on' : 'off'}, max batch items ${pre.maxBatchItems}`,
    ],
    [
      'postprocessing',
      post.length === 0 ? undefined : post.map(([key, value]) => `${key} ${String(value)}`).join(', '),
    ],
    [
      'generation',
      Object.keys(endpoint.generation).length === 0
        ? undefined
        : Object.entries(endpoint.generation)
            .map(([key, value]) => `${key} ${String(value)}`)
            .join(', '),
    ],
    ['sticky header', endpoint.stickyHeader ?? undefined],
    ['timeout', endpoint.timeoutMs === null ? "the model's default" : `${endpoint.timeoutMs}ms`],
    ['updated', endpoint.updatedAt],
  ]);
  const routes = formatTable(
    endpoint.routes,
    [
      { header: 'MODEL', cell: (r) => r.model },
      { header: 'WEIGHT', cell: (r) => `${r.weight}%`, align: 'right' },
      { header: 'ROLE', cell: (r) => r.role },
    ],
    { empty: '(no routes)' },
  );
  return `${details}\n\n${routes}`;
}
