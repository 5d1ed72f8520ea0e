import { type Command, Option } from 'commander';
import { type TokenRole } from '@modelgate/contracts';
import { asArgParser, type ContextFactory, withListTable, withNameOutput } from '../cli-context.js';
import { formatTable } from '../output/table.js';
import { parseResourceName } from './parse-arguments.js';

/** `modelgate token create|list|revoke` (admin only). */
export function registerTokenCommands(program: Command, contextOf: ContextFactory): void {
  const token = program
    .command('token')
    .description('create, list and revoke API tokens (needs an admin token)');

  token
    .command('create')
    .argument('<name>', 'who or what holds the token, e.g. ci', asArgParser(parseResourceName))
    .description('create a token; its secret is printed once, on stdout, and never shown again')
    .addOption(
      new Option('--role <role>', 'admin may change things; viewer may only read')
        .choices(['admin', 'viewer'])
        .makeOptionMandatory(),
    )
    .action(async (name: string, options: { role: TokenRole }, command: Command) => {
      const { client, output } = contextOf(command);
      const created = await client.createToken({ name, role: options.role });
      if (!output.json) {
        output.note(
          `created ${created.role} token '${created.name}'; store its secret now, it is not shown again:`,
        );
      }
      // The bare secret on stdout, so `MODELGATE_TOKEN=$(modelgate token create ...)` works.
      output.result(created, () => created.token);
    });

  withListTable(withNameOutput(token.command('list')))
    .description('list tokens (never their secrets)')
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const tokens = await client.listTokens();
      output.result(tokens, () =>
        formatTable(
          tokens,
          [
            { header: 'NAME', cell: (t) => t.name },
            { header: 'ROLE', cell: (t) => t.role },
            { header: 'CREATED', cell: (t) => t.createdAt },
            { header: 'REVOKED', cell: (t) => t.revokedAt ?? '-' },
          ],
          { empty: '(no tokens)', headers: output.headers },
        ),
      );
    });

  token
    .command('revoke')
    .argument('<name>', 'the token', asArgParser(parseResourceName))
    .description('revoke a token: it stops working at once')
    .action(async (name: string, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const revoked = await client.revokeToken(name);
      output.result(revoked, () => `revoked token ${revoked.name}`);
    });
}
