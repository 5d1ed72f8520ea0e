import { readFile } from 'node:fs/promises';
import { type AdminClient } from '@modelgate/admin-client';
import { type EndpointView } from '@modelgate/contracts';
import { type Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { asArgParser, type ContextFactory, withNameOutput } from '../cli-context.js';
import { UsageError } from '../cli-errors.js';
import { type EndpointPlan, endpointManifest, planEndpoint } from '../manifests/endpoint-manifest.js';
import { readManifests } from '../manifests/read-manifests.js';
import { parseResourceName } from './parse-arguments.js';

interface ApplyOptions {
  filename: string;
  dryRun?: boolean;
}

/** What `apply` did (or, with --dry-run, would do) to one endpoint. */
interface Applied extends Pick<EndpointPlan, 'name' | 'changes'> {
  kind: 'Endpoint';
  action: EndpointPlan['action'];
}

const DONE: Record<EndpointPlan['action'], string> = {
  create: 'created',
  update: 'configured',
  unchanged: 'unchanged',
};

/** The file's text (`-`: stdin); a usage error naming the file when it cannot be read. */
async function readSource(file: string): Promise<string> {
  try {
    if (file !== '-') return await readFile(file, 'utf8');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
    return Buffer.concat(chunks).toString('utf8');
  } catch (error) {
    throw new UsageError(`-f ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Runs one plan against the registry: create or change, then the routes. */
async function execute(client: AdminClient, plan: EndpointPlan): Promise<void> {
  if (plan.create) await client.createEndpoint(plan.create);
  if (plan.update) await client.updateEndpoint(plan.name, plan.update);
  if (plan.routes) await client.setRoutes(plan.name, plan.routes);
}

function render(applied: readonly Applied[], dryRun: boolean): string {
  if (applied.length === 0) return '(no endpoints in the file)';
  return applied
    .flatMap((item) => [
      `endpoint/${item.name} ${dryRun && item.action !== 'unchanged' ? `would be ${DONE[item.action]}` : DONE[item.action]}`,
      ...(dryRun ? item.changes.map((change) => `  ${change}`) : []),
    ])
    .join('\n');
}

/** `modelgate apply -f FILE [--dry-run]` and `modelgate get endpoint[s] [NAME]`. */
export function registerApplyCommands(program: Command, contextOf: ContextFactory): void {
  withNameOutput(program.command('apply'))
    .description(
      'make the registry hold the endpoints of a file (YAML or JSON, `---` between documents; `get endpoint NAME` writes one): creates what is missing, changes the keys that differ, replaces routes that differ; keys left out keep their value',
    )
    .requiredOption('-f, --filename <file>', 'the file, or - for stdin')
    .option('--dry-run', 'print what would change against the registry, change nothing')
    .action(async (options: ApplyOptions, command: Command) => {
      const { client, output } = contextOf(command);
      const manifests = readManifests(await readSource(options.filename), options.filename);
      // Every document is planned before anything changes: a conflict anywhere changes nothing.
      const plans = await Promise.all(
        manifests.map(async (manifest) => planEndpoint(manifest, await client.findEndpoint(manifest.name))),
      );
      const applied: Applied[] = [];
      for (const plan of plans) {
        if (options.dryRun !== true && plan.action !== 'unchanged') await execute(client, plan);
        applied.push({ kind: 'Endpoint', name: plan.name, action: plan.action, changes: plan.changes });
      }
      output.result(applied, () => render(applied, options.dryRun === true));
    });

  const get = program.command('get').description('print resources as files `modelgate apply -f` reads back');
  withNameOutput(get.command('endpoint'))
    .alias('endpoints')
    .argument('[name]', 'one endpoint; all of them when left out', asArgParser(parseResourceName))
    .description('print an endpoint (or every endpoint) as a kind: Endpoint document, YAML unless -o json')
    .action(async (name: string | undefined, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const views: EndpointView[] =
        name === undefined ? await client.listEndpoints() : [await client.getEndpoint(name)];
      const manifests = views.map(endpointManifest);
      const answer = name === undefined ? manifests : manifests[0];
      output.result(answer, () =>
        manifests.map((manifest) => stringifyYaml(manifest).trimEnd()).join('\n---\n'),
      );
    });
}
