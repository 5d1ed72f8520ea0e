// A real Prometheus (Debian's prometheus package) scraping a running registry, gateway and worker
// (issue 15 item 6): every query of the Grafana dashboard and every alert expression of the chart's
// PrometheusRule returns data through Prometheus' HTTP API, and the rules load and evaluate. The
// traffic covers what the panels show: shadows (classification and embeddings), a rollout holding
// in progress, 5xx and 404 answers, and a worker queue that refuses calls when full.
import { join } from 'node:path';
import { type ServiceError, status } from '@grpc/grpc-js';
import {
  type RunningGateway,
  type RunningWorker,
  tokenInferRequest,
  tokenRows,
  waitFor,
  fixtureRegistration,
  waitForPrepared,
  ADMIN_TOKEN,
  type RunningRegistry,
  startRegistryProcess,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runModelgate } from '../../apps/cli/test/support/cli-process.js';
import { type Isolation, isolate } from '../../apps/registry/test/support/registry-harness.js';
import { RELEASE } from './deploy/support/helm.js';
import {
  CHART_JOBS,
  type ChartAlert,
  alertsOf,
  chartRuleGroups,
  dashboardQueries,
  dashboardVariable,
  measuredBy,
} from './support/chart-monitoring.js';
import { queryUntilData, rulesOnceEvaluated } from './support/prometheus-polling.js';
import { type RuleGroup, type RunningPrometheus, startPrometheus } from './support/prometheus-server.js';
import { startLiveWorkerAndGateway } from './support/live-stack.js';
import { refuseOneCallAsQueueFull } from './support/worker-queue.js';

/** Every model version inference of which fails (the worker's test hook): its endpoint answers 500. */
const FAILING = 'tiny:3';
/** What `$__rate_interval` becomes: several 1 s scrapes, as Grafana's would be. */
const RATE_INTERVAL = '1m';
/** Generous: a scrape and a rule evaluation each second, on two shared cores. */
const DATA_TIMEOUT_MS = 60_000;

describe('Prometheus scraping a registry, a gateway and a worker', () => {
  let iso: Isolation;
  let registry: RunningRegistry;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let prometheus: RunningPrometheus;
  let ruleGroups: RuleGroup[];
  let alerts: ChartAlert[];

  /** The samples of `expr` once Prometheus has any. */
  const withData = (expr: string) => queryUntilData(prometheus, expr, DATA_TIMEOUT_MS);

  beforeAll(async () => {
    ruleGroups = chartRuleGroups();
    alerts = alertsOf(ruleGroups);
    iso = await isolate();
    registry = await startRegistryProcess({ ...iso.env, REGISTRY_ROLLOUT_TICK_MS: '200' });
    const files = join(iso.dir, 'files');
    const sst2 = await fixtureRegistration('tiny-bert-sst2', 'tiny', 'text-classification', files);
    const embedder = await fixtureRegistration('tiny-bert-embedder', 'embed', 'feature-extraction', files);
    const decoder = await fixtureRegistration('tiny-gpt2', 'gpt', 'text-generation', files);
    const models = [
      { ...sst2, version: '1' },
      { ...sst2, version: '2' },
      { ...sst2, version: '3' },
      // One batch of one row at a time and one waiting: a second waiting call is refused.
      { ...sst2, name: 'small', version: '1', batching: { maxBatchSize: 1, maxQueueSize: 1 } },
      { ...embedder, version: '1' },
      { ...embedder, version: '2' },
      { ...decoder, version: '1' },
    ];
    for (const body of models) {
      expect((await registry.admin.post('/v1/models', body)).status).toBe(202);
      const id = `${String(body.name)}:${body.version}`;
      expect((await waitForPrepared(registry.admin, id)).status).toBe('READY');
    }
    const endpoints = [
      { name: 'sentiment', task: 'text-classification', model: 'tiny:1', shadow: 'tiny:2' },
      { name: 'embed', task: 'feature-extraction', model: 'embed:1', shadow: 'embed:2' },
      { name: 'broken', task: 'text-classification', model: FAILING },
      { name: 'small', task: 'text-classification', model: 'small:1' },
      { name: 'gradual', task: 'text-classification', model: 'tiny:1' },
      { name: 'writer', task: 'text-generation', model: 'gpt:1' },
    ];
    for (const { name, task, model, shadow } of endpoints) {
      expect((await registry.admin.post('/v1/endpoints', { name, task, model })).status).toBe(201);
      if (shadow === undefined) continue;
      const routes = [
        { model, weight: 100, role: 'primary' },
        { model: shadow, weight: 100, role: 'shadow' },
      ];
      expect((await registry.admin.put(`/v1/endpoints/${name}/routes`, { routes })).status).toBe(200);
    }

    ({ worker, gateway } = await startLiveWorkerAndGateway(registry, iso, {
      worker: {
        WORKER_RECONCILE_INTERVAL_MS: '1000',
        WORKER_TEST_HOOKS: 'true',
        WORKER_TEST_FAILING_MODELS: FAILING,
      },
      gateway: {
        // Two event loops, as the chart runs them: what Prometheus scrapes is the pod's aggregate.
        GATEWAY_WORKERS: '2',
        GATEWAY_RECONCILE_INTERVAL_MS: '1000',
        GATEWAY_DISCOVERY_INTERVAL_MS: '250',
      },
    }));
    for (const endpoint of ['sentiment', 'embed', 'small', 'gradual', 'writer']) {
      await waitFor(async () => (await gateway.post(`/serve/${endpoint}`, { text: 'warm' })).status === 200, {
        timeoutMs: DATA_TIMEOUT_MS,
      });
    }

    const namespace = RELEASE.namespace;
    prometheus = await startPrometheus({
      targets: [
        {
          job: CHART_JOBS.registry,
          metricsUrl: `${registry.url}/metrics`,
          labels: { namespace, pod: 'registry-0' },
        },
        {
          job: CHART_JOBS.gateway,
          metricsUrl: `${gateway.url}/metrics`,
          labels: { namespace, pod: 'gateway-0' },
        },
        {
          job: CHART_JOBS.worker,
          metricsUrl: `${worker.httpUrl}/metrics`,
          labels: { namespace, pod: 'worker-0' },
        },
      ],
      ruleGroups,
    });

    // Traffic: answers, shadows of both kinds, generations, 500s (the failing model), a 404, a full
    // worker queue, a call for a model the worker does not serve, and a rollout that holds for lack
    // of traffic.
    for (let i = 0; i < 3; i++) {
      const body = { text: `Story ${i}:`, parameters: { max_new_tokens: 8 } };
      expect((await gateway.post('/serve/writer', body)).status).toBe(200);
    }
    for (let i = 0; i < 10; i++) {
      expect((await gateway.post('/serve/sentiment', { text: `sentence ${i} is fine` })).status).toBe(200);
      expect((await gateway.post('/serve/embed', { text: `sentence ${i} to embed` })).status).toBe(200);
    }
    for (let i = 0; i < 3; i++) {
      expect((await gateway.post('/serve/broken', { text: 'this fails' })).status).toBe(500);
    }
    expect((await gateway.post('/serve/nowhere', { text: 'no such endpoint' })).status).toBe(404);
    await refuseOneCallAsQueueFull(worker, 'small', DATA_TIMEOUT_MS);
    const unknown = await worker.client
      .call('ModelInfer', tokenInferRequest('not-served', tokenRows(1, 1, 5, 5)))
      .catch((error: ServiceError) => error);
    expect(unknown).toMatchObject({ code: status.NOT_FOUND });
    const started = await runModelgate(
      // Too few requests to judge any window: it holds at its first step until the test ends.
      [
        'rollout',
        'start',
        'gradual',
        '--to',
        'tiny:2',
        '--steps',
        '50,100',
        '--interval',
        '2s',
        '--min-requests',
        '1000000',
      ],
      { registryUrl: registry.url, token: ADMIN_TOKEN },
    );
    expect(started.code, started.stderr).toBe(0);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await gateway?.stop();
    await worker?.stop();
    await registry?.stop();
    await iso?.dispose().catch(() => undefined);
  });

  it('scrapes the registry, the gateway and the worker as healthy targets', async () => {
    const jobs = new Set(Object.values(CHART_JOBS));
    let up: string[] = [];
    await waitFor(
      async () => {
        up = (await prometheus.query('up == 1')).map((sample) => sample.metric.job ?? '');
        return up.length === jobs.size;
      },
      { timeoutMs: DATA_TIMEOUT_MS, describe: () => `${up.join(', ')}\n${prometheus.output()}` },
    );
    expect(new Set(up)).toEqual(jobs);
  });

  it('loads every alert of the chart and evaluates each without an error', async () => {
    const rules = await rulesOnceEvaluated(prometheus, alerts.length, DATA_TIMEOUT_MS);
    expect(rules.map((rule) => rule.name)).toEqual(alerts.map((alert) => alert.alert));
    for (const rule of rules) {
      expect({ rule: rule.name, health: rule.health, error: rule.lastError ?? '' }).toEqual({
        rule: rule.name,
        health: 'ok',
        error: '',
      });
    }
  });

  it('lists this namespace in the dashboard’s namespace variable', async () => {
    const { metric, label } = dashboardVariable('namespace');
    let values: string[] = [];
    const listed = async () =>
      (values = await prometheus.api<string[]>(`/api/v1/label/${label}/values`, { 'match[]': metric }));
    await waitFor(async () => (await listed()).includes(RELEASE.namespace), {
      timeoutMs: DATA_TIMEOUT_MS,
      describe: () => JSON.stringify(values),
    });
    expect(values).toContain(RELEASE.namespace);
  });

  it('answers every query of the Grafana dashboard with data', async () => {
    const queries = dashboardQueries(RATE_INTERVAL);
    expect(queries.length).toBeGreaterThan(20);
    for (const { panel, query } of queries) {
      expect((await withData(query)).length, `${panel}: ${query}`).toBeGreaterThan(0);
    }
  });

  it('answers every alert expression, its threshold left out, with data', async () => {
    expect(alerts.length).toBe(6);
    for (const { alert, expr } of alerts) {
      expect((await withData(measuredBy(expr))).length, `${alert}: ${expr}`).toBeGreaterThan(0);
    }
  });

  it('shows each node 0 revisions behind the registry once caught up', async () => {
    const lag = measuredBy(alerts.find((alert) => alert.alert === 'ModelgateConfigLag')!.expr);
    let samples = await withData(lag);
    await waitFor(
      async () => {
        samples = await prometheus.query(lag);
        return samples.length === 2 && samples.every((sample) => sample.value[1] === '0');
      },
      { timeoutMs: DATA_TIMEOUT_MS, describe: () => JSON.stringify(samples) },
    );
    expect(samples.map((sample) => sample.metric.pod).sort()).toEqual(['gateway-0', 'worker-0']);
  });

  it('counts the failures by reason, and model and version apart', async () => {
    const reasons = async (metric: string) =>
      (await withData(`sum by (reason) (${metric})`)).map((sample) => sample.metric.reason);
    expect(await reasons('modelgate_request_failures_total')).toEqual(
      expect.arrayContaining(['INTERNAL', 'NOT_FOUND']),
    );
    // Failures after routing count against the routed model; before it (no such endpoint) under none.
    const failed = await withData('sum by (model, version, reason) (modelgate_request_failures_total)');
    expect(failed.map(({ metric }) => `${metric.model} ${metric.version} ${metric.reason}`)).toEqual(
      expect.arrayContaining(['tiny 3 INTERNAL', 'none none NOT_FOUND']),
    );
    expect(await reasons('modelgate_inference_failures_total')).toEqual(
      expect.arrayContaining(['INTERNAL', 'NOT_FOUND', 'REJECTED']),
    );
    const served = await withData(
      'sum by (model, version) (modelgate_inference_requests_total{status="ok"})',
    );
    expect(served.map(({ metric }) => `${metric.model} ${metric.version}`)).toEqual(
      expect.arrayContaining(['tiny 1', 'tiny 2', 'embed 1', 'embed 2', 'small 1']),
    );
  });
});
