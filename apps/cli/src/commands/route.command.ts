import { type Command } from 'commander';
import { asArgParser, type ContextFactory } from '../cli-context.js';
import { renderEndpoint } from './endpoint.command.js';
import { warnAboutWorkerGroups } from './fleet-warnings.js';
import { parseModelRef, parseResourceName, parseRouteSpec } from './parse-arguments.js';

/** `modelgate route set`. */
export function registerRouteCommands(program: Command, contextOf: ContextFactory): void {
  const route = program.command('route').description("set an endpoint's canary routes");

  route
    .command('set')
    .argument('<endpoint>', 'the endpoint', asArgParser(parseResourceName))
    .argument('<routes...>', 'name:version=weight[:role] ...')
    .description(
      "replace an endpoint's routes, e.g. `route set sentiment sst2:1=90 sst2:2=10`. Each route is " +
        'name:version=weight, weights in percent summing to 100; add :primary, :canary or :shadow ' +
        'after the weight to set a role (otherwise the heaviest route is primary, the rest canaries). ' +
        'Every model must be READY.',
    )
    .action(async (endpoint: string, specs: string[], _options: unknown, command: Command) => {
      const routes = specs.map(parseRouteSpec);
      const { client, output } = contextOf(command);
      const updated = await client.setRoutes(endpoint, routes);
      output.result(updated, () => renderEndpoint(updated));
      await warnAboutWorkerGroups(
        client,
        output,
        routes.map((route) => parseModelRef(route.model)),
      );
    });
}
