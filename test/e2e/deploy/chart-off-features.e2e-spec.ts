// Settings of a chart feature that is off (the Ingress, the ServiceMonitors, the PrometheusRule or
// one of its alerts, the dashboard, the NetworkPolicies, the migration Job, the helm test pod)
// render nothing, so the chart refuses them instead of ignoring them; their defaults apply in the
// templates, and a value given there changes what is rendered. So are settings that another one
// overrides (a GPU limit beside gpu.count, an alert label named severity) or leaves unused.
import { describe, expect, it } from 'vitest';
import { failureOf, findObject, onDefaults, renderChart, templateArgs } from './support/helm.js';

interface Rule {
  alert: string;
  expr: string;
  for: string;
  labels: Record<string, string>;
}

/** The alerts of the PrometheusRule rendered with these prometheusRule values. */
function alerts(prometheusRule: Record<string, unknown>): Rule[] {
  const objects = renderChart(onDefaults({ values: { metrics: { prometheusRule } } }));
  const spec = findObject(objects, 'PrometheusRule', 'mg-modelgate').spec as { groups: { rules: Rule[] }[] };
  return spec.groups.flatMap((group) => group.rules);
}

describe('helm/modelgate: settings of features that are off', () => {
  it('refuses Ingress and ServiceMonitor settings while those are off, where they would act on nothing', () => {
    expect(
      failureOf(
        templateArgs({
          values: {
            ingress: {
              className: 'nginx',
              hosts: [{ host: 'a.example.com', paths: [{ path: '/', pathType: 'Prefix' }] }],
            },
          },
        }),
      ),
    ).toMatch(
      /ingress.className, ingress.hosts: act only with ingress.enabled, which is false \(no Ingress is rendered\): unset them, or set ingress.enabled/,
    );
    expect(
      failureOf(templateArgs({ values: { metrics: { serviceMonitor: { honorLabels: false } } } })),
    ).toMatch(
      /metrics.serviceMonitor.honorLabels: acts only with metrics.serviceMonitor.enabled, which is false \(no ServiceMonitors are rendered\): unset it, or set metrics.serviceMonitor.enabled/,
    );
    expect(
      failureOf(
        templateArgs({
          values: { metrics: { serviceMonitor: { interval: '15s', labels: { release: 'kps' } } } },
        }),
      ),
    ).toMatch(/: metrics.serviceMonitor.interval, metrics.serviceMonitor.labels: act only with/);
  });

  it('refuses PrometheusRule and alert settings while the rule is off', () => {
    expect(
      failureOf(
        templateArgs({
          values: { metrics: { prometheusRule: { rateWindow: '10m', errorRate: { threshold: 0.1 } } } },
        }),
      ),
    ).toMatch(
      /metrics.prometheusRule.rateWindow, metrics.prometheusRule.errorRate.threshold: act only with metrics.prometheusRule.enabled, which is false \(no PrometheusRule is rendered\)/,
    );
    expect(
      failureOf(templateArgs({ values: { metrics: { prometheusRule: { configLag: { enabled: false } } } } })),
    ).toMatch(/metrics.prometheusRule.configLag.enabled: acts only with metrics.prometheusRule.enabled/);
  });

  it('renders every alert with its defaults, drops one turned off and refuses its other settings', () => {
    const defaults = alerts({ enabled: true });
    expect(defaults.map((rule) => [rule.alert, rule.for, rule.labels.severity])).toEqual([
      ['ModelgateHighErrorRate', '5m', 'critical'],
      ['ModelgateHighLatencyP99', '10m', 'warning'],
      ['ModelgateQueueSaturated', '5m', 'warning'],
      ['ModelgateModelNotReady', '15m', 'warning'],
      ['ModelgateConfigLag', '10m', 'warning'],
      ['ModelgateEndpointWithoutReadyWorkers', '2m', 'critical'],
    ]);
    expect(defaults[0]?.expr).toMatch(/\[5m\]\)\)\n {2}> 0\.05$/);
    const given = alerts({
      enabled: true,
      rateWindow: '10m',
      errorRate: { threshold: 0.1, for: '1m', severity: 'warning' },
      configLag: { thresholdRevisions: 0 },
      latencyP99: { enabled: false },
    });
    expect(given.map((rule) => rule.alert)).not.toContain('ModelgateHighLatencyP99');
    expect(given[0]).toMatchObject({ for: '1m', labels: { severity: 'warning' } });
    expect(given[0]?.expr).toMatch(/\[10m\]\)\)\n {2}> 0\.1$/);
    expect(given.find((rule) => rule.alert === 'ModelgateConfigLag')?.expr).toMatch(/> 0$/);
    expect(
      failureOf(
        templateArgs({
          values: {
            metrics: { prometheusRule: { enabled: true, latencyP99: { enabled: false, for: '5m' } } },
          },
        }),
      ),
    ).toMatch(
      /metrics.prometheusRule.latencyP99.for: acts only with metrics.prometheusRule.latencyP99.enabled, which is false \(the alert is not rendered\)/,
    );
  });

  it.each([
    [
      'migrations',
      { migrations: { enabled: false, backoffLimit: 0 } },
      /migrations.backoffLimit: acts only with migrations.enabled/,
    ],
    [
      'tests',
      { tests: { enabled: false, endpoint: 'sentiment' } },
      /tests.endpoint: acts only with tests.enabled/,
    ],
    [
      'networkPolicy',
      {
        networkPolicy: { enabled: false, registryFrom: [{ podSelector: { matchLabels: { app: 'admin' } } }] },
      },
      /networkPolicy.registryFrom: acts only with networkPolicy.enabled/,
    ],
    [
      'metrics.dashboard',
      { metrics: { dashboard: { enabled: false, labels: { team: 'ml' } } } },
      /metrics.dashboard.labels: acts only with metrics.dashboard.enabled/,
    ],
  ] as const)('refuses %s settings while it is turned off', (_name, values, message) => {
    expect(failureOf(templateArgs({ values }))).toMatch(message);
  });

  it('refuses tests.body without tests.endpoint, where no request is sent', () => {
    expect(failureOf(templateArgs({ values: { tests: { body: { text: 'a' } } } }))).toMatch(
      /tests.body is the request sent to tests.endpoint; without an endpoint the test checks readiness only/,
    );
  });

  it('puts given settings over the defaults that moved into the templates', () => {
    const objects = renderChart(
      onDefaults({
        values: {
          migrations: { backoffLimit: 0, resources: { limits: { memory: '1Gi' } } },
          networkPolicy: { monitoringNamespaceSelector: { matchLabels: { team: 'observability' } } },
          metrics: { dashboard: { labels: { team: 'ml' } } },
        },
      }),
    );
    const job = findObject(objects, 'Job', '-migrations').spec as {
      backoffLimit: number;
      activeDeadlineSeconds: number;
      template: { spec: { containers: { resources: unknown }[] } };
    };
    expect([job.backoffLimit, job.activeDeadlineSeconds]).toEqual([0, 600]);
    expect(job.template.spec.containers[0]?.resources).toEqual({
      requests: { cpu: '100m', memory: '256Mi' },
      limits: { memory: '1Gi' },
    });
    // A selector given replaces the default one (Helm would have merged the two maps' labels).
    expect(JSON.stringify(findObject(objects, 'NetworkPolicy', '-worker').spec)).toContain(
      '{"namespaceSelector":{"matchLabels":{"team":"observability"}}}',
    );
    expect(findObject(objects, 'ConfigMap', '-dashboard').metadata.labels).toMatchObject({
      grafana_dashboard: '1',
      team: 'ml',
    });
  });

  it('refuses GPU settings a CPU worker or the GPU count overrides', () => {
    expect(
      failureOf(templateArgs({ values: { worker: { gpu: { count: 0, resourceName: 'amd.com/gpu' } } } })),
    ).toMatch(
      /worker.gpu.resourceName names the resource worker.gpu.count GPUs are requested as; with worker.gpu.count 0/,
    );
    expect(
      failureOf(templateArgs({ values: { worker: { resources: { limits: { 'nvidia.com/gpu': 2 } } } } })),
    ).toMatch(/worker.resources.limits.nvidia.com\/gpu is set from worker.gpu.count/);
  });

  it('refuses PrometheusRule settings its alerts override or leave unused', () => {
    const rule = (settings: Record<string, unknown>) =>
      failureOf(templateArgs({ values: { metrics: { prometheusRule: { enabled: true, ...settings } } } }));
    expect(rule({ alertLabels: { severity: 'page' } })).toMatch(
      /metrics.prometheusRule.alertLabels.severity would be overridden by each alert's own severity/,
    );
    const rateAlertsOff = {
      errorRate: { enabled: false },
      latencyP99: { enabled: false },
      queueSaturation: { enabled: false },
    };
    expect(rule({ ...rateAlertsOff, rateWindow: '10m' })).toMatch(
      /metrics.prometheusRule.rateWindow is the window of errorRate, latencyP99 and queueSaturation, which are all off/,
    );
    expect(
      rule({
        ...rateAlertsOff,
        modelNotReady: { enabled: false },
        configLag: { enabled: false },
        noLiveWorkers: { enabled: false },
      }),
    ).toMatch(/every alert of metrics.prometheusRule is off, so the PrometheusRule would hold none/);
  });

  it('refuses a fullnameOverride it would have to cut', () => {
    expect(failureOf(templateArgs({ values: { fullnameOverride: 'a'.repeat(46) } }))).toMatch(
      /fullnameOverride has 46 characters; .* so it may have at most 45/,
    );
  });
});
