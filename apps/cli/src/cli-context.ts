import { AdminClient } from '@modelgate/admin-client';
import { type Command, InvalidArgumentError } from 'commander';
import { DEFAULT_REGISTRY_URL, contextsFilePath, loadCliConfig } from './cli.config.js';
import { parseContextsFile, resolveConnection } from './contexts/cli-contexts.js';
import { readTextIfAny } from './contexts/contexts-file.js';
import { UsageError } from './cli-errors.js';
import { checkJsonPath } from './output/jsonpath.js';
import { OUTPUT_FORMATS, Output, type OutputFormat, type OutputStreams } from './output/output.js';

/** What every command action works with. */
export interface CommandContext {
  client: AdminClient;
  output: Output;
}

/** Builds the context of the command being run, from its own and the global options. */
export type ContextFactory = (command: Command) => CommandContext;

/** Options every command takes (declared on the program, accepted before or after the subcommand). */
export interface GlobalOptions {
  registry?: string;
  json?: boolean;
  /** An OUTPUT_FORMATS name, or `jsonpath=TEMPLATE`. */
  output?: string;
  /** false with `--no-headers`. */
  headers?: boolean;
  /** `--context NAME`: a context of the contexts file. */
  context?: string;
}

/** The list commands whose table `--no-headers` prints without its header line (see withListTable). */
const LIST_COMMANDS = new WeakSet<Command>();

/** Marks `command` as one that prints a list table; elsewhere `--no-headers` is refused. */
export function withListTable(command: Command): Command {
  LIST_COMMANDS.add(command);
  return command;
}

/** Whether `command`'s table keeps its header line; `--no-headers` where it means nothing is a usage error. */
export function commandHeaders(command: Command, format: OutputFormat): boolean {
  if (command.optsWithGlobals<GlobalOptions>().headers !== false) return true;
  if (!LIST_COMMANDS.has(command)) {
    throw new UsageError(
      `--no-headers drops the header line of the tables of model list, endpoint list and token list; '${commandPath(command)}' prints none`,
    );
  }
  if (format !== 'table' && format !== 'wide') {
    throw new UsageError(`--no-headers applies to tables; -o ${format} prints none`);
  }
  return false;
}

/** The commands whose answers are named resources, so `-o name` lists them (see withNameOutput). */
const NAME_COMMANDS = new WeakSet<Command>();

/** Marks `command` as one whose answer is one named resource or a list of them; elsewhere `-o name` is refused. */
export function withNameOutput(command: Command): Command {
  NAME_COMMANDS.add(command);
  return command;
}

/** The commands whose table has columns that only `-o wide` shows (see withWideColumns). */
const WIDE_COMMANDS = new WeakSet<Command>();

/** Marks `command` as one whose table `-o wide` widens; on every other command `-o wide` is refused. */
export function withWideColumns(command: Command): Command {
  WIDE_COMMANDS.add(command);
  return command;
}

/** `model get`: the command's words under the program. */
function commandPath(command: Command): string {
  const words: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/** The output format of `command`; `-o wide` where its output has no wider form is a usage error. */
export function commandOutputFormat(command: Command): OutputFormat {
  const format = outputFormat(command.optsWithGlobals<GlobalOptions>());
  if (format === 'wide' && !WIDE_COMMANDS.has(command)) {
    throw new UsageError(
      `-o wide adds columns to the tables of model list, endpoint list and status; ` +
        `'${commandPath(command)}' has no wider form: use -o table, json or yaml`,
    );
  }
  if (format === 'name' && !NAME_COMMANDS.has(command)) {
    throw new UsageError(
      `-o name lists the resources of model add, list and show, endpoint add, set, list and show, apply, get endpoint, and token list; ` +
        `'${commandPath(command)}' answers none: use -o table, json or yaml`,
    );
  }
  return format;
}

/** The context factory over the environment and these streams. */
export function contextFactory(streams: OutputStreams): ContextFactory {
  return (command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const format = commandOutputFormat(command);
    const output = new Output(
      format,
      streams,
      commandHeaders(command, format),
      format === 'jsonpath' ? (options.output ?? '').slice(JSONPATH_PREFIX.length) : '',
    );
    let client: AdminClient | undefined;
    return {
      output,
      // Built when a command first calls the registry: perf never does, so its settings are not read.
      get client(): AdminClient {
        if (client) return client;
        const config = loadCliConfig({ registryFlag: options.registry !== undefined });
        const file = contextsFilePath(config);
        const { registry, token } = resolveConnection(
          {
            ...(options.registry === undefined ? {} : { registryFlag: options.registry }),
            ...(options.context === undefined ? {} : { contextFlag: options.context }),
            ...(config.MODELGATE_REGISTRY === undefined ? {} : { envRegistry: config.MODELGATE_REGISTRY }),
            ...(config.MODELGATE_TOKEN === undefined ? {} : { envToken: config.MODELGATE_TOKEN }),
            defaultRegistry: DEFAULT_REGISTRY_URL,
          },
          parseContextsFile(readTextIfAny(file), file),
          file,
        );
        client = new AdminClient({ baseUrl: registry, ...(token === undefined ? {} : { token }) });
        return client;
      },
    };
  };
}

/** Adapts a pure argument parser (throwing UsageError) to a commander option/argument parser. */
export function asArgParser<T>(parse: (text: string) => T): (text: string) => T {
  return (text) => {
    try {
      return parse(text);
    } catch (error) {
      if (error instanceof UsageError) throw new InvalidArgumentError(error.message);
      throw error;
    }
  };
}

const JSONPATH_PREFIX = 'jsonpath=';

/** `-o`'s value: a format of OUTPUT_FORMATS, or `jsonpath=TEMPLATE` with a template that reads. */
export function parseOutputOption(given: string): string {
  // `-o=json` (kubectl's spelling) reaches here as `=json`.
  const text = given.startsWith('=') ? given.slice(1) : given;
  if (text.startsWith(JSONPATH_PREFIX)) {
    checkJsonPath(text.slice(JSONPATH_PREFIX.length));
    return text;
  }
  if (text === 'jsonpath') throw new UsageError('-o jsonpath needs a template: -o jsonpath={.name}');
  if (!(OUTPUT_FORMATS as readonly string[]).includes(text)) {
    throw new UsageError(
      `'${text}' is not an output format: ${OUTPUT_FORMATS.filter((f) => f !== 'jsonpath').join(', ')} or jsonpath=TEMPLATE`,
    );
  }
  return text;
}

/** `-o` wins; `--json` is `-o json`; the default is a table. Both, disagreeing, is a usage error. */
export function outputFormat(options: Pick<GlobalOptions, 'json' | 'output'>): OutputFormat {
  if (options.json === true && options.output !== undefined && options.output !== 'json') {
    throw new UsageError(`--json and -o ${options.output} disagree: give one of them`);
  }
  if (options.output?.startsWith(JSONPATH_PREFIX) === true) return 'jsonpath';
  return (options.output as OutputFormat | undefined) ?? (options.json === true ? 'json' : 'table');
}
