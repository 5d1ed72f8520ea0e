import { type Command } from 'commander';
import { type ContextFactory, type GlobalOptions } from '../cli-context.js';
import { contextsFilePath, loadCliConfig, registryUrlSchema } from '../cli.config.js';
import { UsageError } from '../cli-errors.js';
import { parseContextsFile, withContext, withCurrentContext } from '../contexts/cli-contexts.js';
import { readTextIfAny, writeContextsFile } from '../contexts/contexts-file.js';
import { formatTable } from '../output/table.js';

interface SetContextOptions {
  registry?: string;
  token?: string;
}

/** The contexts file and what it holds; `--registry` or `--context` beside a config command is refused. */
function loadContexts(command: Command) {
  const globals = command.optsWithGlobals<GlobalOptions>();
  for (const [flag, given] of [
    ['--registry', globals.registry],
    ['--context', globals.context],
  ] as const) {
    if (given !== undefined) {
      throw new UsageError(`${flag}: config commands read and write the contexts file, and call no registry`);
    }
  }
  const file = contextsFilePath(loadCliConfig({ registryFlag: true }));
  return { file, contexts: parseContextsFile(readTextIfAny(file), file) };
}

/** `modelgate config get-contexts|current-context|use-context|set-context`. */
export function registerConfigCommands(program: Command, contextOf: ContextFactory): void {
  const config = program
    .command('config')
    .description(
      'contexts: several registries, each with its URL and token, in one file (env MODELGATE_CONFIG)',
    );

  config
    .command('get-contexts')
    .description('list the contexts; * marks the current one')
    .action((_options: unknown, command: Command) => {
      const { output } = contextOf(command);
      const { contexts } = loadContexts(command);
      const rows = Object.entries(contexts.contexts).map(([name, entry]) => ({
        name,
        current: contexts['current-context'] === name,
        registry: entry.registry,
        token: entry.token !== undefined,
      }));
      output.result(rows, () =>
        formatTable(
          rows,
          [
            { header: 'CURRENT', cell: (row) => (row.current ? '*' : '') },
            { header: 'NAME', cell: (row) => row.name },
            { header: 'REGISTRY', cell: (row) => row.registry },
            { header: 'TOKEN', cell: (row) => (row.token ? 'set' : '-') },
          ],
          { empty: '(no contexts: modelgate config set-context NAME --registry-url URL)' },
        ),
      );
    });

  config
    .command('current-context')
    .description('print the current context')
    .action((_options: unknown, command: Command) => {
      const { output } = contextOf(command);
      const { contexts, file } = loadContexts(command);
      const current = contexts['current-context'];
      if (current === undefined)
        throw new UsageError(`${file} names no current context (modelgate config use-context NAME)`);
      output.result({ name: current }, () => current);
    });

  config
    .command('use-context')
    .argument('<name>', 'a context of the file')
    .description('make a context the current one')
    .action(async (name: string, _options: unknown, command: Command) => {
      const { output } = contextOf(command);
      const { contexts, file } = loadContexts(command);
      await writeContextsFile(file, withCurrentContext(contexts, name, file));
      output.result(undefined, () => `current context: ${name}`);
    });

  config
    .command('set-context')
    .argument('<name>', 'the context to add or change')
    .description("add a context, or change a context's registry or token (keys not given keep their value)")
    .option('--registry-url <url>', "the context's registry base URL (required for a new context)")
    .option('--token <token>', "the context's Bearer token (the file is written readable by you alone)")
    .action(async (name: string, options: SetContextOptions & { registryUrl?: string }, command: Command) => {
      const { output } = contextOf(command);
      const { contexts, file } = loadContexts(command);
      const existing = contexts.contexts[name];
      const registry = options.registryUrl ?? existing?.registry;
      if (registry === undefined) {
        throw new UsageError(`config set-context ${name}: a new context needs --registry-url URL`);
      }
      const checked = registryUrlSchema.safeParse(registry);
      if (!checked.success) {
        throw new UsageError(`--registry-url: ${checked.error.issues[0]?.message ?? 'is not a URL'}`);
      }
      const token = options.token ?? existing?.token;
      await writeContextsFile(
        file,
        withContext(contexts, name, { registry: checked.data, ...(token === undefined ? {} : { token }) }),
      );
      output.result(
        undefined,
        () => `context ${name}: ${checked.data}${token === undefined ? '' : ' (token set)'}`,
      );
    });
}
