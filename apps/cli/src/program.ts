import { AdminAnswerError, AdminApiError, AdminUnreachableError } from '@modelgate/admin-client';
import { MODELGATE_VERSION } from '@modelgate/contracts';
import { Command, CommanderError, Option } from 'commander';
import { asArgParser, contextFactory, parseOutputOption } from './cli-context.js';
import { CliFailure, describeFailure, ExitCode, UsageError } from './cli-errors.js';
import { DEFAULT_REGISTRY_URL } from './cli.config.js';
import { registerApplyCommands } from './commands/apply.command.js';
import { registerEndpointCommands } from './commands/endpoint.command.js';
import { registerModelCommands } from './commands/model.command.js';
import { parseRegistryUrl } from './commands/parse-arguments.js';
import { registerPerfCommand } from './commands/perf.command.js';
import { registerRolloutCommands } from './commands/rollout.command.js';
import { registerRouteCommands } from './commands/route.command.js';
import { registerStatusCommand } from './commands/status.command.js';
import { registerTokenCommands } from './commands/token.command.js';
import { registerVersionCommand } from './commands/version.command.js';
import { registerCompletionCommand } from './commands/completion.command.js';
import { registerConfigCommands } from './commands/config.command.js';
import { OUTPUT_FORMATS, type OutputStreams } from './output/output.js';

/** The CLI's version (`modelgate --version`, `modelgate version`). */
export const CLI_VERSION = MODELGATE_VERSION;

/** The `modelgate` command tree, writing to `streams`; parse errors throw CommanderError (no process.exit). */
export function buildProgram(streams: OutputStreams): Command {
  const program = new Command('modelgate')
    .description(
      'Admin CLI of the modelgate registry: models, endpoints, canary routes, rollouts, tokens, fleet status.',
    )
    // -V prints the CLI's version alone; `modelgate --version` runs `modelgate version` (runCli),
    // which adds the registry's; `--version` after `model add` is the version number to register.
    .version(CLI_VERSION, '-V, --cli-version', 'print the CLI version')
    .option(
      '--registry <url>',
      `registry base URL (env MODELGATE_REGISTRY, default ${DEFAULT_REGISTRY_URL})`,
      asArgParser(parseRegistryUrl),
    )
    .addOption(
      new Option(
        '-o, --output <format>',
        "table (default), wide (more columns: model list, endpoint list, status), json, yaml, name (one resource name per line), or jsonpath=TEMPLATE (kubectl's JSONPath over the answer, e.g. jsonpath='{.routes[*].model}')",
      )
        // The choices are listed in help and completion; the parser also takes jsonpath=TEMPLATE.
        .choices([...OUTPUT_FORMATS.filter((format) => format !== 'jsonpath'), 'jsonpath='])
        .argParser(asArgParser(parseOutputOption)),
    )
    .option(
      '--context <name>',
      'a context of the contexts file (env MODELGATE_CONFIG, default ~/.config/modelgate/config.yaml): its registry and token',
    )
    .option('--json', 'print the raw API JSON on stdout, nothing else (for scripts); same as -o json')
    .option('--no-headers', 'list tables without their header line (model list, endpoint list, token list)')
    .addHelpText(
      'after',
      '\nAuthentication: the Bearer token in env MODELGATE_TOKEN (admin for changes, viewer for reads).',
    )
    .exitOverride()
    .showHelpAfterError('(add --help for usage)')
    .configureOutput({
      writeOut: (text) => streams.stdout.write(text),
      writeErr: (text) => streams.stderr.write(text),
    });
  // Subcommands inherit exitOverride, output and help settings from here on.
  const contextOf = contextFactory(streams);
  registerModelCommands(program, contextOf);
  registerEndpointCommands(program, contextOf);
  registerRouteCommands(program, contextOf);
  registerApplyCommands(program, contextOf);
  registerRolloutCommands(program, contextOf);
  registerTokenCommands(program, contextOf);
  registerStatusCommand(program, contextOf);
  registerPerfCommand(program, contextOf);
  registerVersionCommand(program, contextOf);
  registerConfigCommands(program, contextOf);
  registerCompletionCommand(program);
  return program;
}

/**
 * Runs one command line (without `node` and the script) and resolves with the exit code: 0 done,
 * 1 the registry refused or failed it (its message on stderr), 2 a usage error. Never a stack.
 */
export async function runCli(argv: readonly string[], streams: OutputStreams): Promise<number> {
  const program = buildProgram(streams);
  try {
    await program.parseAsync(withVersionCommand(argv), { from: 'user' });
    return ExitCode.OK;
  } catch (error) {
    return reportFailure(error, streams);
  }
}

/** Global options that take a value (the value is the next argument unless given as `--opt=value`). */
const GLOBAL_VALUE_OPTIONS = new Set(['--registry', '--context', '-o', '--output']);
/** Global options that ask for one output format. */
const FORMAT_OPTIONS = new Set(['-o', '--output', '--json']);

/**
 * `modelgate [global options] --version` is `modelgate [global options] version`; a `--version`
 * after the subcommand stays that subcommand's own (`model add --version 3`). `-V` prints the bare
 * version, so a format option beside it is refused rather than ignored.
 */
function withVersionCommand(argv: readonly string[]): string[] {
  let at = 0;
  let versionAt = -1;
  let bareVersion = false;
  let format = false;
  while (at < argv.length) {
    const arg = argv[at] ?? '';
    if (!arg.startsWith('-')) break; // the subcommand
    const name = arg.split('=')[0] ?? arg;
    if (arg === '--version' && versionAt < 0) versionAt = at;
    if (arg === '-V' || arg === '--cli-version') bareVersion = true;
    if (FORMAT_OPTIONS.has(name)) format = true;
    at += GLOBAL_VALUE_OPTIONS.has(arg) ? 2 : 1;
  }
  if (bareVersion && format) {
    throw new UsageError('-V prints the bare CLI version: for JSON or YAML run `modelgate version -o json`');
  }
  if (versionAt < 0) return [...argv];
  return [...argv.slice(0, versionAt), ...argv.slice(versionAt + 1, at), 'version', ...argv.slice(at)];
}

function reportFailure(error: unknown, streams: OutputStreams): number {
  const write = (line: string): void => void streams.stderr.write(`${line}\n`);
  if (error instanceof CommanderError) {
    // Commander has printed its message (and help) already; --help and -V end with code 0.
    return error.exitCode === 0 ? ExitCode.OK : ExitCode.USAGE;
  }
  if (error instanceof UsageError) {
    write(`error: ${error.message}`);
    write('(add --help for usage)');
    return ExitCode.USAGE;
  }
  if (error instanceof AdminApiError) {
    write(`error: ${describeFailure(error)}`);
    const facts = [
      error.code,
      `HTTP ${error.status}`,
      ...(error.field !== undefined && !error.message.includes(error.field) ? [`field ${error.field}`] : []),
      ...(error.requestId === undefined ? [] : [`request ${error.requestId}`]),
    ];
    write(`  (${facts.join(', ')})`);
    return ExitCode.FAILURE;
  }
  if (
    error instanceof AdminUnreachableError ||
    error instanceof AdminAnswerError ||
    error instanceof CliFailure
  ) {
    write(`error: ${describeFailure(error)}`);
    return ExitCode.FAILURE;
  }
  // A bug or an unexpected system error: say what it was, still without a stack.
  write(`error: ${error instanceof Error ? error.message : String(error)}`);
  return ExitCode.FAILURE;
}
