import { type AdminClient, type ModelKey } from '@modelgate/admin-client';
import { type FleetStatusView } from '@modelgate/contracts';
import { type Output } from '../output/output.js';

/**
 * The models among `groups` (model id → worker group) whose group has no live worker, as warning
 * lines; none when the fleet cannot be seen (the registry says why in `note`, e.g. no Redis).
 */
export function workerGroupWarnings(status: FleetStatusView, groups: ReadonlyMap<string, string>): string[] {
  if (status.note !== undefined) return [];
  const live = new Set(status.nodes.filter((node) => node.role === 'worker').map((node) => node.workerGroup));
  return [...groups]
    .filter(([, group]) => !live.has(group))
    .map(
      ([id, group]) =>
        `warning: no live worker in group '${group}': model ${id} is not served until one starts ` +
        `(a worker started with WORKER_GROUP=${group})`,
    );
}

/**
 * Warns on stderr about models whose worker group has no live worker. Best effort: a status the
 * registry cannot give (an older registry, Redis down) leaves the command's result as it was.
 */
export async function warnAboutWorkerGroups(
  client: AdminClient,
  output: Output,
  models: readonly ModelKey[],
): Promise<void> {
  try {
    const groups = new Map<string, string>();
    for (const key of models) {
      const model = await client.getModel(key);
      groups.set(model.id, model.workerGroup);
    }
    for (const line of workerGroupWarnings(await client.status(), groups)) output.note(line);
  } catch {
    // the warning is a courtesy; the command itself succeeded
  }
}
