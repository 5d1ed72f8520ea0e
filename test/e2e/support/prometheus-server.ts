// A real Prometheus server (Debian's prometheus package) for end-to-end tests: its own config,
// storage and free port, scraping the given targets every second and evaluating the given rules.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, waitFor } from '@modelgate/testing';
import { stringify } from 'yaml';
import { prometheusPackageBinary } from '../deploy/support/promtool.js';

/** One scrape job: its job label, the URL of its /metrics and the labels to put on its series. */
export interface ScrapeTarget {
  job: string;
  metricsUrl: string;
  labels: Record<string, string>;
}

/** One sample of an instant vector: its labels and value (a string, as the API answers; NaN included). */
export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface RunningPrometheus {
  url: string;
  /** GETs `path` of the HTTP API (`/api/v1/...`) and returns its `data`; throws on an error status. */
  api<T>(path: string, params?: Record<string, string>): Promise<T>;
  /** Evaluates `expr` as an instant query now. */
  query(expr: string): Promise<PromSample[]>;
  /** Its stdout and stderr so far, for failure messages. */
  output(): string;
  stop(): Promise<void>;
}

/** A rule group as Prometheus' rules files hold it. */
export type RuleGroup = Record<string, unknown>;

/**
 * Starts prometheus on a free loopback port with a temp storage directory, scraping `targets`
 * every second and evaluating `ruleGroups` every second; resolves once it reports ready.
 */
export async function startPrometheus(options: {
  targets: readonly ScrapeTarget[];
  ruleGroups?: readonly RuleGroup[];
}): Promise<RunningPrometheus> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-prometheus-'));
  const rulesFile = join(dir, 'rules.yaml');
  await writeFile(rulesFile, stringify({ groups: options.ruleGroups ?? [] }));
  const configFile = join(dir, 'prometheus.yaml');
  await writeFile(
    configFile,
    stringify({
      global: { scrape_interval: '1s', scrape_timeout: '1s', evaluation_interval: '1s' },
      rule_files: [rulesFile],
      scrape_configs: options.targets.map((target) => {
        const url = new URL(target.metricsUrl);
        return {
          job_name: target.job,
          metrics_path: url.pathname,
          static_configs: [{ targets: [url.host], labels: target.labels }],
        };
      }),
    }),
  );
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child: ChildProcess = spawn(
    prometheusPackageBinary('prometheus'),
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const api = async <T>(path: string, params: Record<string, string> = {}): Promise<T> => {
    const response = await fetch(`${url}${path}?${new URLSearchParams(params).toString()}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`${path} ${JSON.stringify(params)}: ${body.error}`);
    return body.data;
  };

  try {
    await waitFor(async () => (await fetch(`${url}/-/ready`)).ok, {
      timeoutMs: 30_000,
      describe: () => output,
    });
  } catch (error) {
    // Never ready (or it exited): leave no prometheus running and no storage behind.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    api,
    query: async (expr) => (await api<{ result: PromSample[] }>('/api/v1/query', { query: expr })).result,
    output: () => output,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
