import { type Command, InvalidArgumentError } from 'commander';
import { loadCliConfig } from './cli.config.js';
import { UsageError } from './cli-errors.js';
import { Output, type OutputStreams } from './output/output.js';
import { RegistryClient } from './registry-client.js';

/** What every command action works with. */
export interface CommandContext {
  client: RegistryClient;
  output: Output;
}

/** Builds the context of the command being run, from its own and the global options. */
export type ContextFactory = (command: Command) => CommandContext;

/** Options every command takes (declared on the program, accepted before or after the subcommand). */
export interface GlobalOptions {
  registry?: string;
  json?: boolean;
}

/** The context factory over the environment and these streams. */
export function contextFactory(streams: OutputStreams): ContextFactory {
  return (command) => {
    const options = command.optsWithGlobals<GlobalOptions>();
    const config = loadCliConfig();
    return {
      client: new RegistryClient(options.registry ?? config.MODELGATE_REGISTRY, config.MODELGATE_TOKEN),
      output: new Output(options.json === true, streams),
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
