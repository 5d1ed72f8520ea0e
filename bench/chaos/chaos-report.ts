/** The chaos run's results: what the JSON holds and the markdown a person reads. */
import { type Deployment } from '../control-plane.js';
import { type ChangeReport, type DrillResult } from './run-drill.js';
import { type SoakResult } from './run-soak.js';
import { renderSoakMarkdown } from './soak-report.js';

/** Everything one `npm run chaos` wrote. */
export interface ChaosResults {
  meta: {
    startedAt: string;
    finishedAt?: string;
    host: string;
    cpuModel: string;
    cores: number;
    node: string;
    onnxruntime: string;
    commit?: string;
    loadAverage: { start: number; end?: number };
    /** The exact command line. */
    command: string;
    drills: string[];
    downSeconds: number;
    concurrency: number;
    deployment: Deployment;
    /** How the fleet is laid out and how config reaches it. */
    fleet: string;
    /** How the load picks gateways. */
    load: string;
    /** Where every process's output was saved. */
    logDir: string;
  };
  drills: DrillResult[];
  /** The soak, when it ran. */
  soak?: SoakResult;
  /** Why the run stopped before its last drill, if it did. */
  aborted?: string;
  passed: boolean;
}

const seconds = (s: number | undefined) => (s === undefined ? '–' : `${s.toFixed(2)} s`);
const signed = (s: number) => `${s >= 0 ? '+' : ''}${s.toFixed(1)} s`;

function failedCell(drill: DrillResult): string {
  if (drill.load.failed === 0) return '0';
  const kinds = drill.load.failures.map((group) => `${group.count} ${group.outcome}`).join('; ');
  return `**${drill.load.failed}** (${kinds})`;
}

function changeCell(change: ChangeReport | undefined): string {
  if (!change) return '–';
  const during = `${change.duringFault.answer} at ${signed(change.duringFault.atS)}`;
  const accepted = change.afterRepair.at(-1);
  const after =
    accepted === undefined
      ? ''
      : `; after the repair: ${accepted.answer} at ${signed(accepted.atS)}` +
        (change.afterRepair.length > 1 ? ` (attempt ${change.afterRepair.length})` : '');
  const expected = change.duringFault.answer.startsWith('HTTP 200')
    ? ''
    : ` (expected: ${change.expectedDuringFault})`;
  return `${change.change}: ${during}${expected}${after}`;
}

function reachedCell(change: ChangeReport | undefined): string {
  if (!change) return '–';
  const lagging = change.finalRevisions.filter(
    (node) => change.revision === undefined || (node.revision ?? -1) < change.revision,
  );
  if (change.revision === undefined) return '**no**: never accepted';
  if (lagging.length > 0) {
    return `**no**: ${lagging.map((node) => `${node.node} at ${node.revision}`).join(', ')} (revision ${change.revision})`;
  }
  const running =
    change.reachedRunningNodesS === undefined
      ? ''
      : `, running nodes ${seconds(change.reachedRunningNodesS)} after it`;
  return `yes (revision ${change.revision}${running})`;
}

/** The one-row-per-drill table. */
export function renderDrillTable(drills: readonly DrillResult[]): string {
  const rows = drills.map((drill) =>
    [
      drill.drill,
      drill.load.sent,
      failedCell(drill),
      `${seconds(drill.load.longestStall.ms / 1000)} (${signed(drill.load.longestStall.fromS)} → ${signed(drill.load.longestStall.toS)})`,
      changeCell(drill.config),
      reachedCell(drill.config),
      drill.passed ? 'passed' : '**FAILED**',
    ].join(' | '),
  );
  return [
    '| drill | sent | failed | longest stall (from → to, after the fault) | config change during the fault | reached every node | result |',
    '| --- | ---: | --- | --- | --- | --- | --- |',
    ...rows.map((row) => `| ${row} |`),
  ].join('\n');
}

function drillDetails(drill: DrillResult): string {
  const { load, timeline } = drill;
  const lines = [
    `### ${drill.drill}`,
    '',
    `Fault: ${drill.fault}. The part served again at ${signed(timeline.repairedS ?? NaN)}; every node ` +
      `confirmed at the change's revision at ${signed(timeline.convergedS ?? NaN)}; load stopped at ` +
      `${signed(timeline.loadEndS)} (times after the fault).`,
    `Answered ${load.ok} of ${load.sent}; latency of answered requests p50 ${load.latencyMs.p50.toFixed(0)} ms, p99 ${load.latencyMs.p99.toFixed(0)} ms, max ${load.latencyMs.max.toFixed(0)} ms.`,
  ];
  if (load.failures.length > 0) {
    lines.push(
      '',
      '| failed with | requests | gateways | first | last | first message |',
      '| --- | ---: | --- | --- | --- | --- |',
    );
    for (const group of load.failures) {
      const gateways = group.gateways.map((g) => (g < 0 ? 'none ready' : String(g))).join(', ');
      const message = (drill.failureMessages[group.outcome] ?? '').replaceAll('|', '\\|');
      lines.push(
        `| ${group.outcome} | ${group.count} | ${gateways} | ${signed(group.firstS)} | ${signed(group.lastS)} | ${message} |`,
      );
    }
  }
  if (drill.readiness.length > 0) {
    const changes = drill.readiness.map(
      (change) =>
        `gateway ${change.gateway} ${change.ready ? 'ready' : `unready (${change.probe})`} at ${signed(change.atS)}`,
    );
    lines.push('', `Readiness as the load saw it: ${changes.join('; ')}.`);
  }
  if (drill.findings) lines.push('', ...drill.findings.lines);
  if (drill.error) lines.push('', `The drill itself went wrong: \`${drill.error.split('\n')[0]}\``);
  return lines.join('\n');
}

/** The results file a person reads. */
export function renderChaosMarkdown(results: ChaosResults): string {
  const { meta } = results;
  const verdict = results.passed
    ? 'Every drill passed: no failed request, and every config change reached every node.'
    : 'Not every drill passed (see the results and the details).';
  return [
    `# Chaos drills — ${meta.startedAt.slice(0, 10)}, ${meta.host}`,
    '',
    `\`${meta.command}\` at ${meta.commit ?? 'an unknown commit'}; ${meta.cpuModel} (${meta.cores} cores), node ${meta.node}, onnxruntime-node ${meta.onnxruntime}; load average ${meta.loadAverage.start.toFixed(2)} at the start, ${meta.loadAverage.end?.toFixed(2) ?? '–'} at the end.`,
    '',
    `- Fleet: ${meta.fleet}`,
    `- Load: ${meta.load}`,
    `- Outages (worker-hang, redis-down, postgres-down, registry-down, disk-full) last ${meta.downSeconds} s; process logs: \`${meta.logDir}\`.`,
    '',
    verdict,
    ...(results.aborted ? ['', `The run stopped early: ${results.aborted}`] : []),
    '',
    ...(results.drills.length > 0 ? [renderDrillTable(results.drills), ''] : []),
    ...(results.drills.length > 0
      ? ['## Per drill', '', results.drills.map(drillDetails).join('\n\n'), '']
      : []),
    ...(results.soak ? [renderSoakMarkdown(results.soak), ''] : []),
  ].join('\n');
}
