import {
  DEFAULT_STICKY_HEADER,
  type EndpointView,
  MODEL_TASKS,
  type ModelTask,
  type Route,
} from '@modelgate/contracts';
import { type Command, Option } from 'commander';
import { asArgParser, type ContextFactory, withWideColumns } from '../cli-context.js';
import { formatDetails, formatTable } from '../output/table.js';
import { warnAboutWorkerGroups } from './fleet-warnings.js';
import { parseModelRef, parsePositiveInt, parseResourceName } from './parse-arguments.js';

interface EndpointAddOptions {
  model: string;
  task?: ModelTask;
  maxTokens?: number;
  timeoutMs?: number;
}

/** `modelgate endpoint add|list|show|remove`. */
export function registerEndpointCommands(program: Command, contextOf: ContextFactory): void {
  const endpoint = program.command('endpoint').description('create, list, inspect and remove endpoints');

  endpoint
    .command('add')
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
    .action(async (name: string, options: EndpointAddOptions, command: Command) => {
      const { client, output } = contextOf(command);
      const task = options.task ?? (await client.getModel(parseModelRef(options.model))).task;
      const created = await client.createEndpoint({
        name,
        task,
        model: options.model,
        ...(options.maxTokens === undefined ? {} : { preprocessing: { maxTokens: options.maxTokens } }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
      });
      output.result(created, () => renderEndpoint(created));
      await warnAboutWorkerGroups(client, output, [parseModelRef(options.model)]);
    });

  withWideColumns(endpoint.command('list'))
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
          { empty: '(no endpoints)', wide },
        ),
      );
    });

  endpoint
    .command('show')
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
