// Settings of a chart feature that is off (the Ingress, the ServiceMonitors, the PrometheusRule or
// one of its alerts) render nothing, so the chart refuses them instead of ignoring them; their
// defaults apply in the templates, and a value given there changes what is rendered.
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
});
