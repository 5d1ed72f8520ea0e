import { type Command } from 'commander';
import { type ContextFactory } from '../cli-context.js';
import { CliFailure, describeFailure } from '../cli-errors.js';
import { MODELGATE_VERSION } from '@modelgate/contracts';

/** What `modelgate version -o json` prints. */
export interface VersionsView {
  cli: { version: string };
  registry: { url: string; version: string } | { url: string; error: string };
}

/** `modelgate version` (and `modelgate --version`): the CLI's release and the registry's. */
export function registerVersionCommand(program: Command, contextOf: ContextFactory): void {
  program
    .command('version')
    .description("print the CLI's version and the registry's (GET /v1/version)")
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      let registry: VersionsView['registry'];
      try {
        registry = { url: client.baseUrl, version: (await client.version()).version };
      } catch (error) {
        registry = { url: client.baseUrl, error: describeFailure(error) };
      }
      const view: VersionsView = { cli: { version: MODELGATE_VERSION }, registry };
      output.result(view, () =>
        [
          `modelgate CLI ${MODELGATE_VERSION}`,
          'version' in registry ? `registry ${registry.version} (${registry.url})` : '',
        ]
          .filter((line) => line !== '')
          .join('\n'),
      );
      if ('error' in registry) throw new CliFailure(`registry version unknown: ${registry.error}`);
    });
}
