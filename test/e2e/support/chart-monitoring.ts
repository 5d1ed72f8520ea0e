// What the Helm chart asks of Prometheus: the Grafana dashboard's queries and the PrometheusRule's
// alerts, in the form an end-to-end test sends them to a real Prometheus.
import { readFileSync } from 'node:fs';
import { findObject, onDefaults, RELEASE, renderChart } from '../deploy/support/helm.js';
import { repoPath } from '../deploy/support/repo.js';
import { type RuleGroup } from './prometheus-server.js';

/** The Service names the chart's alerts select by (`job`), for the tests' release `mg`. */
export const CHART_JOBS = {
  registry: 'mg-modelgate-registry',
  gateway: 'mg-modelgate-gateway',
  worker: 'mg-modelgate-worker',
} as const;

/** One alert of the PrometheusRule. */
export interface ChartAlert {
  alert: string;
  expr: string;
}

interface Dashboard {
  panels: { title: string; targets?: { expr: string }[] }[];
  templating: { list: { name: string; definition?: string }[] };
}

function readDashboard(): Dashboard {
  return JSON.parse(
    readFileSync(repoPath('helm', 'modelgate', 'dashboards', 'modelgate.json'), 'utf8'),
  ) as Dashboard;
}

/**
 * Every query of the Grafana dashboard with its variables as Grafana fills them in for the
 * release's namespace; `$__rate_interval` becomes `rateInterval`.
 */
export function dashboardQueries(rateInterval: string): { panel: string; query: string }[] {
  return readDashboard().panels.flatMap((panel) =>
    (panel.targets ?? []).map((target) => {
      const query = target.expr
        .replaceAll('$__rate_interval', rateInterval)
        .replaceAll('$namespace', RELEASE.namespace);
      if (query.includes('$')) throw new Error(`a dashboard variable not filled in: ${target.expr}`);
      return { panel: panel.title, query };
    }),
  );
}

/** The metric and label of a `label_values(metric, label)` dashboard variable. */
export function dashboardVariable(name: string): { metric: string; label: string } {
  const variable = readDashboard().templating.list.find((entry) => entry.name === name);
  const [, metric, label] = /^label_values\((\w+), (\w+)\)$/.exec(variable?.definition ?? '') ?? [];
  if (metric === undefined || label === undefined) throw new Error(`no label_values variable ${name}`);
  return { metric, label };
}

/** The PrometheusRule's groups, rendered for release mg in namespace serving with the defaults. */
export function chartRuleGroups(): RuleGroup[] {
  const objects = renderChart(onDefaults({ values: { metrics: { prometheusRule: { enabled: true } } } }));
  return (findObject(objects, 'PrometheusRule', 'mg-modelgate').spec as { groups: RuleGroup[] }).groups;
}

/** The alerts of rule groups. */
export function alertsOf(groups: readonly RuleGroup[]): ChartAlert[] {
  return groups.flatMap((group) => group.rules as ChartAlert[]);
}

/** An alert expression without its threshold comparison: what it compares, present while healthy too. */
export function measuredBy(expr: string): string {
  const measured = expr.replace(/\s*(?:==|!=|>=|<=|>|<)\s*[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?\s*$/, '');
  if (measured === expr) throw new Error(`an alert expression without a threshold comparison: ${expr}`);
  return measured;
}
