import { type Command } from 'commander';
import { type FleetStatusView, type NodeStatusView } from '@modelgate/contracts';
import { type ContextFactory, withWideColumns } from '../cli-context.js';
import { formatTable } from '../output/table.js';
import { formatElapsed } from './preparation-progress.js';
import { describeRolloutSummary } from './rollout-render.js';

/** `modelgate status`: the fleet as the registry sees it through heartbeats. */
export function registerStatusCommand(program: Command, contextOf: ContextFactory): void {
  withWideColumns(program.command('status'))
    .description(
      "the latest config revision and every live node: applied revision, lag, models' states, endpoints a gateway cannot serve; rollouts in progress",
    )
    .action(async (_options: unknown, command: Command) => {
      const { client, output } = contextOf(command);
      const status = await client.status();
      output.result(status, (wide) => renderStatus(status, wide));
    });
}

/** `sst2:1 READY, sst2:2 LOADING`, sorted by model id. */
export function describeModelStates(models: Record<string, string>): string {
  const entries = Object.entries(models).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? '-' : entries.map(([id, state]) => `${id} ${state}`).join(', ');
}

/** A node of `GET /v1/status`; registries older than this CLI leave out `reasons`. */
type NodeStatusAnswer = Omit<NodeStatusView, 'reasons'> & Partial<Pick<NodeStatusView, 'reasons'>>;

/** `GET /v1/status` as any registry answers it: older ones leave out `rollouts` (and nodes' `reasons`). */
export type FleetStatusAnswer = Omit<FleetStatusView, 'nodes' | 'rollouts'> &
  Partial<Pick<FleetStatusView, 'rollouts'>> & { nodes: NodeStatusAnswer[] };

/** A gateway's endpoints, `sentiment ready, vectors not ready`, sorted by name; `-` for other nodes. */
export function describeEndpointStates(endpoints: NodeStatusAnswer['endpoints']): string {
  const entries = Object.entries(endpoints ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0
    ? '-'
    : entries.map(([name, verdict]) => `${name} ${verdict.ready ? 'ready' : 'not ready'}`).join(', ');
}

/**
 * The revision line, the nodes table and the registry's note, if any; `wide` adds each gateway's
 * endpoints, servable or not (the narrow table lists only those it cannot serve, below it).
 */
export function renderStatus(status: FleetStatusAnswer, wide = false): string {
  const table = formatTable<NodeStatusAnswer>(
    status.nodes,
    [
      { header: 'ROLE', cell: (n) => n.role },
      { header: 'ID', cell: (n) => n.id },
      { header: 'ADDRESS', cell: (n) => n.address },
      { header: 'GROUP', cell: (n) => n.workerGroup ?? '-' },
      { header: 'REVISION', cell: (n) => (n.revision === null ? '-' : String(n.revision)), align: 'right' },
      { header: 'LAG', cell: (n) => (n.lag === null ? '-' : String(n.lag)), align: 'right' },
      { header: 'SEEN', cell: (n) => `${formatElapsed(n.lastSeenMs)} ago`, align: 'right' },
      { header: 'MODELS', cell: (n) => describeModelStates(n.models) },
      { header: 'ENDPOINTS', cell: (n) => describeEndpointStates(n.endpoints), wide: true },
    ],
    { empty: '(no live nodes)', wide },
  );
  const lines = [`latest revision ${status.revision}`, '', table];
  const failures = status.nodes.flatMap((node) =>
    Object.entries(node.reasons ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([model, reason]) => `  ${node.id} ${model}: ${reason}`),
  );
  if (failures.length > 0)
    lines.push('', 'degraded (models that failed to load or stopped serving):', ...failures);
  const unservable = status.nodes.flatMap((node) =>
    Object.entries(node.endpoints ?? {})
      .filter(([, verdict]) => !verdict.ready)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, verdict]) => `  ${node.id} ${name}: ${verdict.reason ?? 'not servable'}`),
  );
  if (unservable.length > 0)
    lines.push('', 'endpoints a gateway cannot serve (it stays ready for the others):', ...unservable);
  const rollouts = status.rollouts ?? [];
  if (rollouts.length > 0)
    lines.push(
      '',
      'rollouts in progress (modelgate rollout status <endpoint>):',
      ...rollouts.map((r) => `  ${describeRolloutSummary(r)}`),
    );
  if (status.note !== undefined) lines.push('', `note: ${status.note}`);
  return lines.join('\n');
}
