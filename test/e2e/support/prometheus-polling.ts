// Waiting on a running Prometheus (support/prometheus-server.ts) until it has what a test asks of
// it: data for a query, every rule loaded and evaluated.
import { waitFor } from '@modelgate/testing';
import { type PromSample, type RunningPrometheus } from './prometheus-server.js';

/** A rule as `/api/v1/rules` lists it. */
export interface LoadedRule {
  name: string;
  health: string;
  lastError?: string;
}

/** Polls `prometheus` until `expr` returns at least one sample; returns them. */
export async function queryUntilData(
  prometheus: RunningPrometheus,
  expr: string,
  timeoutMs: number,
): Promise<PromSample[]> {
  let answer: PromSample[] = [];
  await waitFor(async () => (answer = await prometheus.query(expr)).length > 0, {
    timeoutMs,
    intervalMs: 500,
    describe: () => `no data for ${expr}\n${prometheus.output()}`,
  });
  return answer;
}

/** Polls `prometheus` until it lists `count` rules, each evaluated at least once; returns them. */
export async function rulesOnceEvaluated(
  prometheus: RunningPrometheus,
  count: number,
  timeoutMs: number,
): Promise<LoadedRule[]> {
  let rules: LoadedRule[] = [];
  await waitFor(
    async () => {
      const data = await prometheus.api<{ groups: { rules: LoadedRule[] }[] }>('/api/v1/rules');
      rules = data.groups.flatMap((group) => group.rules);
      return rules.length === count && rules.every((rule) => rule.health !== 'unknown');
    },
    { timeoutMs, describe: () => JSON.stringify(rules) },
  );
  return rules;
}
