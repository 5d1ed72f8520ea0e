/**
 * The worker-only load generator: a plain Open Inference Protocol client (grpc-js, tensors in
 * raw_input_contents, one sentence per call), `concurrency` calls in flight in a closed loop, in a
 * process of its own. Sentences are tokenized up front: this measures the worker, not the
 * tokenizer. Each answer's queue_time_us / compute_time_us parameters are averaged.
 */
import { type EncodeInputsOptions, encodeInputs, loadTokenizerFromDir } from '@modelgate/processing';
import { type Message, OipTestClient, tokenInferRequest } from '@modelgate/testing';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import { type LoadResult } from '../load-result.js';
import { StageAverager, summarizeLatencies } from '../stats.js';

/** Settings from the parent. */
export interface GrpcLoadConfig {
  /** host:port of the worker's gRPC server. */
  address: string;
  model: string;
  fixtureDir: string;
  concurrency: number;
  durationS: number;
  warmupS: number;
  sentences: string[];
  /** Total calls to make instead of a duration (then `durationS` is ignored). */
  amount?: number;
}

interface Recorder {
  latencies: number[];
  okTokens: number;
  stages: StageAverager;
  statusCodes: Map<string, number>;
}

const config = readChildConfig<GrpcLoadConfig>();
const tokenizer = await loadTokenizerFromDir(config.fixtureDir);
const inputNames: EncodeInputsOptions['inputNames'] = ['input_ids', 'attention_mask', 'token_type_ids'];
const requests: { message: Message; tokens: number }[] = config.sentences.map((text) => {
  const ids = encodeInputs({ texts: [text], tokenizer, inputNames, truncation: true }).tensors.input_ids;
  const row = Array.from(ids?.data ?? [], Number);
  return { message: tokenInferRequest(config.model, [row]), tokens: row.length };
});
const client = new OipTestClient(config.address);

/** A ModelInfer answer's int64 parameter in µs, as ms. */
function parameterMs(response: Message, name: string): number | undefined {
  const parameters = response.parameters as Record<string, { int64_param?: number }> | undefined;
  const micros = parameters?.[name]?.int64_param;
  return typeof micros === 'number' ? micros / 1000 : undefined;
}

/** Runs for `limit.seconds`, or until `limit.calls` calls have been made; resolves with the seconds it took. */
async function load(limit: { seconds: number } | { calls: number }, recorder?: Recorder): Promise<number> {
  const end = 'seconds' in limit ? performance.now() + limit.seconds * 1000 : Infinity;
  const calls = 'calls' in limit ? limit.calls : Infinity;
  let next = 0;
  const loop = async (): Promise<void> => {
    while (performance.now() < end && next < calls) {
      const request = requests[next++ % requests.length];
      if (!request) break;
      const started = performance.now();
      try {
        const response = await client.call('ModelInfer', request.message, { deadlineMs: 30_000 });
        if (!recorder) continue;
        recorder.latencies.push(performance.now() - started);
        recorder.okTokens += request.tokens;
        const stages = new Map<string, number>();
        for (const [stage, parameter] of [
          ['queue', 'queue_time_us'],
          ['compute', 'compute_time_us'],
        ] as const) {
          const ms = parameterMs(response, parameter);
          if (ms !== undefined) stages.set(stage, ms);
        }
        recorder.stages.add(stages);
        recorder.statusCodes.set('OK', (recorder.statusCodes.get('OK') ?? 0) + 1);
      } catch (error) {
        const status = (error as { code?: unknown }).code;
        const code = typeof status === 'number' ? String(status) : 'CONNECTION';
        recorder?.statusCodes.set(code, (recorder.statusCodes.get(code) ?? 0) + 1);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: config.concurrency }, loop));
  return (performance.now() - started) / 1000;
}

if (config.warmupS > 0) await load({ seconds: config.warmupS });
const recorder: Recorder = {
  latencies: [],
  okTokens: 0,
  stages: new StageAverager(),
  statusCodes: new Map(),
};
mark('measuring');
const cpuBefore = process.cpuUsage();
const durationS = await load(
  config.amount === undefined ? { seconds: config.durationS } : { calls: config.amount },
  recorder,
);
const cpu = process.cpuUsage(cpuBefore);
mark('measured');
client.close();
const ok = recorder.latencies.length;
const failedWithStatus = [...recorder.statusCodes]
  .filter(([code]) => code !== 'OK' && code !== 'CONNECTION')
  .reduce((sum, [, n]) => sum + n, 0);
const answer: LoadResult = {
  concurrency: config.concurrency,
  durationS,
  ok,
  non2xx: failedWithStatus,
  errors: recorder.statusCodes.get('CONNECTION') ?? 0,
  // gRPC status 4 = DEADLINE_EXCEEDED
  timeouts: recorder.statusCodes.get('4') ?? 0,
  statusCodes: Object.fromEntries(recorder.statusCodes),
  throughput: ok / durationS,
  latency: summarizeLatencies(recorder.latencies),
  stages: recorder.stages.averages(),
  okTokens: recorder.okTokens,
  loadGeneratorCpuMs: (cpu.user + cpu.system) / 1000,
};
reportResult(answer);
