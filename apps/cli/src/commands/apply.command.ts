import { readFile } from 'node:fs/promises';
import { type AdminClient, AdminApiError } from '@modelgate/admin-client';
import { type EndpointView, type ModelView, type RolloutView } from '@modelgate/contracts';
import { type Command } from 'commander';
import { stringify as stringifyYaml } from 'yaml';
import { asArgParser, type ContextFactory, withNameOutput } from '../cli-context.js';
import { CliFailure, UsageError } from '../cli-errors.js';
import { type EndpointPlan, endpointManifest, planEndpoint } from '../manifests/endpoint-manifest.js';
import { type ModelPlan, modelManifest, planModel } from '../manifests/model-manifest.js';
import { readManifests } from '../manifests/read-manifests.js';
import { planRollout } from '../manifests/rollout-manifest.js';
import { type Output } from '../output/output.js';
import { parseResourceName } from './parse-arguments.js';
import { waitForPreparation } from './preparation-progress.js';

interface ApplyOptions {
  filename: string;
  dryRun?: boolean;
}

/** What `apply` did (or, with --dry-run, would do) to one resource. */
interface Applied {
  kind: 'Endpoint' | 'Model' | 'Rollout';
  /** The endpoint, or the model version (`name:version`; `name` alone for a version not registered yet). */
  name: string;
  action: 'create' | 'update' | 'unchanged';
  changes: string[];
}

const DONE: Record<Applied['action'], string> = {
  create: 'created',
  update: 'configured',
  unchanged: 'unchanged',
};

/** Longest apply waits for a model it registered to be prepared. */
const PREPARATION_TIMEOUT_MS = 15 * 60 * 1000;

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

/** Runs one endpoint plan: create or change, then the routes. */
async function executeEndpoint(client: AdminClient, plan: EndpointPlan): Promise<void> {
  if (plan.create) await client.createEndpoint(plan.create);
  if (plan.update) await client.updateEndpoint(plan.name, plan.update);
  if (plan.routes) await client.setRoutes(plan.name, plan.routes);
}

/** Registers a model version and waits until it is READY (an endpoint may route to it next). */
async function executeModel(client: AdminClient, plan: ModelPlan, output: Output): Promise<ModelView> {
  if (!plan.register) throw new Error('nothing to register');
  const accepted = await client.registerModel(plan.register);
  const prepared = await waitForPreparation(client, accepted, output, PREPARATION_TIMEOUT_MS);
  if (prepared.status !== 'READY') {
    throw new CliFailure(
      `model ${prepared.id} is ${prepared.status}: ${prepared.statusReason ?? 'no reason given'}`,
    );
  }
  return prepared;
}

function render(applied: readonly Applied[], dryRun: boolean): string {
  if (applied.length === 0) return '(nothing in the file)';
  return applied
    .flatMap((item) => [
      `${item.kind.toLowerCase()}/${item.name} ${dryRun && item.action !== 'unchanged' ? `would be ${DONE[item.action]}` : DONE[item.action]}`,
      ...(dryRun ? item.changes.map((change) => `  ${change}`) : []),
    ])
    .join('\n');
}

/** `modelgate apply -f FILE [--dry-run]` and `modelgate get endpoint|model`. */
export function registerApplyCommands(program: Command, contextOf: ContextFactory): void {
  withNameOutput(program.command('apply'))
    .description(
      'make the registry hold the models, endpoints and rollouts of a file (YAML or JSON, `---` between documents; `get endpoint|model NAME` writes them): registers model versions it lacks (and waits for READY), creates missing endpoints, changes the keys that differ, replaces routes that differ; keys left out keep their value',
    )
    .requiredOption('-f, --filename <file>', 'the file, or - for stdin')
    .option('--dry-run', 'print what would change against the registry, change nothing')
    .action(async (options: ApplyOptions, command: Command) => {
      const { client, output } = contextOf(command);
      const manifests = readManifests(await readSource(options.filename), options.filename);
      const dryRun = options.dryRun === true;
      // Every document is planned before anything changes: a conflict anywhere changes nothing.
      // Models first: the file's endpoints may route to them.
      const models = await Promise.all(
        manifests.flatMap((manifest) =>
          manifest.kind === 'Model'
            ? [client.listModels(manifest.request.name).then((versions) => planModel(manifest, versions))]
            : [],
        ),
      );
      const endpoints = await Promise.all(
        manifests.flatMap((manifest) =>
          manifest.kind === 'Endpoint'
            ? [client.findEndpoint(manifest.name).then((current) => planEndpoint(manifest, current))]
            : [],
        ),
      );
      const rollouts = await Promise.all(
        manifests.flatMap((manifest) =>
          manifest.kind === 'Rollout'
            ? [
                Promise.all([
                  latestRollout(client, manifest.endpoint),
                  client.findEndpoint(manifest.endpoint),
                ]).then(([latest, endpoint]) => ({
                  manifest,
                  plan: planRollout(manifest, latest, endpoint),
                })),
              ]
            : [],
        ),
      );
      const applied: Applied[] = [];
      for (const plan of models) {
        let name = plan.version === undefined ? plan.name : `${plan.name}:${plan.version}`;
        if (!dryRun && plan.action === 'create') name = (await executeModel(client, plan, output)).id;
        applied.push({ kind: 'Model', name, action: plan.action, changes: plan.changes });
      }
      for (const plan of endpoints) {
        if (!dryRun && plan.action !== 'unchanged') await executeEndpoint(client, plan);
        applied.push({ kind: 'Endpoint', name: plan.name, action: plan.action, changes: plan.changes });
      }
      // Rollouts last: they move the traffic of endpoints the file may have just created.
      for (const { manifest, plan } of rollouts) {
        if (!dryRun && plan.action === 'create')
          await client.startRollout(manifest.endpoint, manifest.request);
        applied.push({ kind: 'Rollout', name: plan.endpoint, action: plan.action, changes: plan.changes });
      }
      output.result(applied, () => render(applied, dryRun));
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
      output.result(name === undefined ? manifests : manifests[0], () => documents(manifests));
    });

  withNameOutput(get.command('model'))
    .alias('models')
    .argument('<name[:version]>', 'one version, or every version of the model')
    .description(
      'print a model version (or every version of a model) as kind: Model documents, YAML unless -o json',
    )
    .action(async (ref: string, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const [name = '', version] = ref.split(':', 2);
      parseResourceName(name);
      const views =
        version === undefined ? await client.listModels(name) : [await client.getModel({ name, version })];
      if (views.length === 0) throw new CliFailure(`model ${name} has no versions`);
      const manifests = views.map(modelManifest);
      output.result(version === undefined ? manifests : manifests[0], () => documents(manifests));
    });
}

/** The endpoint's latest rollout; undefined when it never had one. */
async function latestRollout(client: AdminClient, endpoint: string): Promise<RolloutView | undefined> {
  try {
    return await client.getRollout(endpoint);
  } catch (error) {
    if (error instanceof AdminApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** YAML documents, `---` between them. */
function documents(manifests: readonly object[]): string {
  return manifests.map((manifest) => stringifyYaml(manifest).trimEnd()).join('\n---\n');
}
