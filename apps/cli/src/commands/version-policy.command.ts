import { describeVersionPolicy, type VersionPolicyView } from '@modelgate/contracts';
import { type Command } from 'commander';
import { asArgParser, type ContextFactory } from '../cli-context.js';
import { parseResourceName, parseVersionPolicy } from './parse-arguments.js';

/** `modelgate model policy <name> [policy]`: show or set which READY versions workers load. */
export function registerVersionPolicyCommand(model: Command, contextOf: ContextFactory): void {
  model
    .command('policy')
    .argument('<name>', 'model name', asArgParser(parseResourceName))
    .argument('[policy]', 'all | latest[:N] | specific:V1,V2,... | default (latest 1)')
    .description(
      'show or set which READY versions of a model the workers load. Routed versions (primary, ' +
        'canary, shadow) always load; the policy adds versions for calls that name one ' +
        '(/serve/<endpoint>/<version>, /v2/models/<name>/versions/<v>/infer). Default: latest 1.',
    )
    .action(async (name: string, text: string | undefined, _options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      let view: VersionPolicyView;
      if (text === undefined) view = await client.getVersionPolicy(name);
      else {
        const policy = parseVersionPolicy(text);
        view =
          policy === undefined
            ? await client.resetVersionPolicy(name)
            : await client.setVersionPolicy(name, policy);
      }
      output.result(view, () => renderVersionPolicy(view));
    });
}

function renderVersionPolicy(view: VersionPolicyView): string {
  const policy = `${describeVersionPolicy(view.policy)}${view.isDefault ? ' (default)' : ''}`;
  const loaded = view.loadedVersions.length === 0 ? 'none' : view.loadedVersions.join(', ');
  return `model ${view.model}: version policy ${policy}; loaded versions: ${loaded}`;
}
