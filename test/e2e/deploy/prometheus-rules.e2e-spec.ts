// The chart's PrometheusRule: valid rules for `promtool check rules`, written against metrics and
// labels the apps register, and each alert firing (or not) on synthetic series under
// `promtool test rules`, Prometheus' own rule evaluator.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { findObject, onDefaults, RELEASE, renderChart } from './support/helm.js';
import { runPromtool } from './support/promtool.js';
import { repoPath } from './support/repo.js';

interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface RuleGroup {
  name: string;
  rules: AlertRule[];
}

const ALERTS = [
  'ModelgateHighErrorRate',
  'ModelgateHighLatencyP99',
  'ModelgateQueueSaturated',
  'ModelgateModelNotReady',
  'ModelgateConfigLag',
  'ModelgateEndpointWithoutReadyWorkers',
];
/** Labels Prometheus or the Operator put on every scraped series, besides the apps' own. */
const TARGET_LABELS = new Set(['namespace', 'job', 'pod', 'instance', 'service', 'le', 'app']);

const ns = RELEASE.namespace;
const gateway = `namespace="${ns}", job="mg-modelgate-gateway"`;
const worker = `namespace="${ns}", job="mg-modelgate-worker"`;
const registry = `namespace="${ns}", job="mg-modelgate-registry"`;

let groups: RuleGroup[];
let dir: string;

/** The PrometheusRule's groups rendered with `values` (prometheusRule enabled), as a rules file. */
function renderRules(values: Record<string, unknown> = {}): { groups: RuleGroup[]; file: string } {
  const objects = renderChart(
    onDefaults({
      values: {
        ...values,
        metrics: {
          ...(values.metrics as object | undefined),
          prometheusRule: { enabled: true, alertLabels: { team: 'ml-platform' } },
        },
      },
    }),
  );
  const rendered = (findObject(objects, 'PrometheusRule', 'mg-modelgate').spec as { groups: RuleGroup[] })
    .groups;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'modelgate-rules-')), 'rules.yaml');
  writeFileSync(file, stringify({ groups: rendered }));
  return { groups: rendered, file };
}

function rule(name: string): AlertRule {
  const found = groups.flatMap((group) => group.rules).find((candidate) => candidate.alert === name);
  if (found === undefined) throw new Error(`no alert ${name}`);
  return found;
}

/** An alert's annotations as Prometheus fills them in for `labels`, with `$value` already formatted. */
function annotationsFor(name: string, labels: Record<string, string>, value: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(rule(name).annotations).map(([key, template]) => [
      key,
      template
        .replace(/\{\{ \$labels\.(\w+) \}\}/g, (_, label: string) => labels[label] ?? '')
        .replace(/\{\{ \$value(?: \| \w+)? \}\}/g, value),
    ]),
  );
}

/** One expected alert: its labels (the alert's own added) and annotations. */
function expected(name: string, labels: Record<string, string>, value: string) {
  const all = { ...rule(name).labels, ...labels };
  return { exp_labels: all, exp_annotations: annotationsFor(name, all, value) };
}

/** Metric name → the label names its registration declares, from the apps' metrics sources. */
function registeredMetrics(): Map<string, Set<string>> {
  const metrics = new Map<string, Set<string>>();
  for (const dir of ['apps/gateway/src', 'apps/worker/src', 'apps/registry/src', 'libs/observability/src']) {
    for (const file of readdirSync(repoPath(dir), { recursive: true, encoding: 'utf8' })) {
      if (!file.endsWith('.ts') || file.endsWith('.spec.ts')) continue;
      const source = readFileSync(repoPath(dir, file), 'utf8');
      for (const [, name, body] of source.matchAll(/name: '(modelgate_[a-z_]+)',([\s\S]*?)registers:/g)) {
        const labels = /labelNames: \[([^\]]*)\]/.exec(body ?? '')?.[1] ?? '';
        metrics.set(name ?? '', new Set([...labels.matchAll(/'(\w+)'/g)].map(([, label]) => label ?? '')));
      }
    }
  }
  return metrics;
}

beforeAll(() => {
  ({ groups } = renderRules());
  dir = mkdtempSync(path.join(tmpdir(), 'modelgate-promtool-'));
});

describe('helm/modelgate PrometheusRule', () => {
  it('is rendered only when metrics.prometheusRule.enabled, with the six alerts', () => {
    expect(renderChart(onDefaults()).filter((object) => object.kind === 'PrometheusRule')).toEqual([]);
    expect(groups.flatMap((group) => group.rules.map((candidate) => candidate.alert))).toEqual(ALERTS);
  });

  it('passes `promtool check rules`', () => {
    const { file } = renderRules();
    const result = runPromtool(['check', 'rules', file]);
    expect(result.output).toContain(`SUCCESS: ${ALERTS.length} rules found`);
    expect(result.status).toBe(0);
  });

  it('queries only metrics the apps register, by labels those metrics carry', () => {
    const metrics = registeredMetrics();
    for (const { alert, expr } of groups.flatMap((group) => group.rules)) {
      const used = [...expr.matchAll(/\b(modelgate_[a-z_]+)\b/g)].map(([, name]) =>
        (name ?? '').replace(/_(bucket|sum|count)$/, ''),
      );
      expect(used.length, alert).toBeGreaterThan(0);
      const labels = new Set(TARGET_LABELS);
      for (const name of used) {
        expect(metrics.has(name), `${alert}: ${name} is not registered by any app`).toBe(true);
        for (const label of metrics.get(name) ?? []) labels.add(label);
      }
      const grouped = [...expr.matchAll(/by \(([^)]*)\)/g)].flatMap(([, list]) =>
        (list ?? '').split(',').map((label) => label.trim()),
      );
      const matched = [...expr.matchAll(/[{,]\s*(\w+)\s*=~?"/g)].map(([, label]) => label ?? '');
      expect(
        [...grouped, ...matched].filter((label) => !labels.has(label)),
        alert,
      ).toEqual([]);
    }
  });

  it('groups by serving_endpoint, a label the Operator’s `endpoint` target label cannot rename, honorLabels or not', () => {
    for (const honorLabels of [true, false]) {
      const { groups: rules, file } = renderRules({
        metrics: { serviceMonitor: { enabled: true, honorLabels } },
      });
      const errorRate = rules[0]?.rules.find((candidate) => candidate.alert === 'ModelgateHighErrorRate');
      expect(errorRate?.expr).toContain('sum by (namespace, serving_endpoint)');
      expect(errorRate?.annotations.summary).toContain('$labels.serving_endpoint');
      for (const { expr } of rules.flatMap((group) => group.rules)) {
        expect(expr).not.toMatch(/[(,{]\s*(?:exported_)?endpoint\b/);
      }
      expect(runPromtool(['check', 'rules', file]).status).toBe(0);
    }
  });

  it('fires each alert on the series that should raise it, and only after its `for` (promtool test rules)', () => {
    const { file } = renderRules();
    const endpointSeries = (endpoint: string, code: string, values: string) => ({
      series: `modelgate_requests_total{${gateway}, serving_endpoint="${endpoint}", model="m", version="1", route="primary", code="${code}"}`,
      values,
    });
    const bucket = (le: string, values: string) => ({
      series: `modelgate_request_duration_seconds_bucket{${gateway}, serving_endpoint="sentiment", route="primary", le="${le}"}`,
      values,
    });
    const tests = {
      rule_files: [file],
      evaluation_interval: '1m',
      tests: [
        {
          interval: '1m',
          input_series: [
            // sentiment: 10 % 5xx; embed: 1 %, under the 5 % threshold.
            endpointSeries('sentiment', '200', '0+90x40'),
            endpointSeries('sentiment', '500', '0+10x40'),
            endpointSeries('embed', '200', '0+99x40'),
            endpointSeries('embed', '503', '0+1x40'),
            // Every sentiment request takes between 1 s and 2 s: p99 = 1.99 s.
            bucket('0.5', '0x40'),
            bucket('1', '0x40'),
            bucket('2', '0+10x40'),
            bucket('+Inf', '0+10x40'),
            // 2 % of sst2:1's calls refused with a full queue (failure reason REJECTED).
            {
              series: `modelgate_inference_requests_total{${worker}, pod="w-0", model="sst2", version="1", status="ok"}`,
              values: '0+98x40',
            },
            {
              series: `modelgate_inference_requests_total{${worker}, pod="w-0", model="sst2", version="1", status="queue_full"}`,
              values: '0+2x40',
            },
            {
              series: `modelgate_inference_failures_total{${worker}, pod="w-0", model="sst2", version="1", reason="REJECTED"}`,
              values: '0+2x40',
            },
            // w-0 never gets sst2:2 ready; sst2:1 is ready.
            {
              series: `modelgate_model_ready{${worker}, pod="w-0", model="sst2", version="2"}`,
              values: '0x40',
            },
            {
              series: `modelgate_model_ready{${worker}, pod="w-0", model="sst2", version="1"}`,
              values: '1x40',
            },
            // The registry is at revision 7; gw-0 has applied it, w-0 is stuck at 5.
            { series: `modelgate_registry_config_revision{${registry}, pod="r-0"}`, values: '7x40' },
            {
              series: `modelgate_config_revision{namespace="${ns}", job="mg-modelgate-gateway", pod="gw-0"}`,
              values: '7x40',
            },
            { series: `modelgate_config_revision{${worker}, pod="w-0"}`, values: '5x40' },
            // orphan: no gateway can serve it; sentiment: one gateway can.
            {
              series: `modelgate_endpoint_ready{${gateway}, pod="gw-0", serving_endpoint="orphan"}`,
              values: '0x40',
            },
            {
              series: `modelgate_endpoint_ready{${gateway}, pod="gw-1", serving_endpoint="orphan"}`,
              values: '0x40',
            },
            {
              series: `modelgate_endpoint_ready{${gateway}, pod="gw-0", serving_endpoint="sentiment"}`,
              values: '1x40',
            },
            {
              series: `modelgate_endpoint_ready{${gateway}, pod="gw-1", serving_endpoint="sentiment"}`,
              values: '0x40',
            },
          ],
          alert_rule_test: [
            // Pending, not firing, before `for` (5m) has passed since the first rate (at 1m).
            { eval_time: '4m', alertname: 'ModelgateHighErrorRate', exp_alerts: [] },
            {
              eval_time: '15m',
              alertname: 'ModelgateHighErrorRate',
              exp_alerts: [
                expected('ModelgateHighErrorRate', { namespace: ns, serving_endpoint: 'sentiment' }, '10%'),
              ],
            },
            {
              eval_time: '25m',
              alertname: 'ModelgateHighLatencyP99',
              exp_alerts: [
                expected(
                  'ModelgateHighLatencyP99',
                  { namespace: ns, serving_endpoint: 'sentiment' },
                  '1.99s',
                ),
              ],
            },
            {
              eval_time: '15m',
              alertname: 'ModelgateQueueSaturated',
              exp_alerts: [
                expected('ModelgateQueueSaturated', { namespace: ns, model: 'sst2', version: '1' }, '2%'),
              ],
            },
            { eval_time: '10m', alertname: 'ModelgateModelNotReady', exp_alerts: [] },
            {
              eval_time: '20m',
              alertname: 'ModelgateModelNotReady',
              exp_alerts: [
                expected(
                  'ModelgateModelNotReady',
                  { namespace: ns, pod: 'w-0', model: 'sst2', version: '2' },
                  '0',
                ),
              ],
            },
            {
              eval_time: '15m',
              alertname: 'ModelgateConfigLag',
              exp_alerts: [
                expected(
                  'ModelgateConfigLag',
                  { namespace: ns, job: 'mg-modelgate-worker', pod: 'w-0' },
                  '2',
                ),
              ],
            },
            {
              eval_time: '5m',
              alertname: 'ModelgateEndpointWithoutReadyWorkers',
              exp_alerts: [
                expected(
                  'ModelgateEndpointWithoutReadyWorkers',
                  { namespace: ns, serving_endpoint: 'orphan' },
                  '0',
                ),
              ],
            },
          ],
        },
      ],
    };
    const testFile = path.join(dir, 'rules.test.yaml');
    writeFileSync(testFile, stringify(tests));
    const result = runPromtool(['test', 'rules', testFile]);
    expect(result.output).toContain('SUCCESS');
    expect(result.status).toBe(0);
  });
});
