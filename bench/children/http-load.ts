/**
 * The HTTP load generator: autocannon, programmatic, in a process of its own. Closed loop, one
 * request in flight per connection (concurrency = connections), like perf_analyzer's concurrency
 * mode. Bodies cycle through the bench sentences (or question-answering bodies built from them, or
 * the image workload's JPEGs as raw bodies). Latency comes from every response's own timer
 * (autocannon's histogram rounds to whole ms, too coarse at c=1), and every 2xx response's
 * Server-Timing header is averaged, so each step also says where the time went.
 */
import { parseServerTiming } from '@modelgate/observability';
import autocannon from 'autocannon';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import { type LoadResult } from '../load-result.js';
import { type ImageWorkload, imageJpegs } from '../image-workload.js';
import { type QaWorkload, qaBodies } from '../qa-bodies.js';
import { StageAverager, summarizeLatencies } from '../stats.js';

/** Settings from the parent. */
export interface HttpLoadConfig {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** POST path, e.g. /serve/sentiment */
  path: string;
  concurrency: number;
  /** Measured seconds (ignored when `amount` is set). */
  durationS: number;
  /** Total requests to send instead of a duration. */
  amount?: number;
  /** Unmeasured run at the same concurrency first, in seconds. */
  warmupS: number;
  sentences: string[];
  /** Send question-answering bodies built from the sentences instead of `{text}` of each. */
  questionAnswering?: QaWorkload;
  /** Send the workload's JPEGs as raw bodies (`content-type: image/jpeg`) instead of JSON. */
  images?: ImageWorkload;
}

const config = readChildConfig<HttpLoadConfig>();
const jsonBodies: unknown[] = config.questionAnswering
  ? qaBodies(config.sentences, config.questionAnswering)
  : config.sentences.map((text) => ({ text }));
const bodies: (string | Buffer)[] = config.images
  ? await imageJpegs(config.images)
  : jsonBodies.map((body) => JSON.stringify(body));
const contentType = config.images ? 'image/jpeg' : 'application/json';

interface Recorder {
  latencies: number[];
  /** performance.now() of the last answer. */
  lastAnswerAt: number;
  stages: StageAverager;
}

async function load(options: { durationS?: number; amount?: number; recorder?: Recorder }) {
  let next = 0;
  const { recorder } = options;
  const instance = autocannon({
    url: config.url,
    connections: config.concurrency,
    pipelining: 1,
    timeout: 30,
    ...(options.amount !== undefined ? { amount: options.amount } : { duration: options.durationS ?? 1 }),
    requests: [
      {
        method: 'POST',
        path: config.path,
        headers: { 'content-type': contentType },
        setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] ?? '' }),
        onResponse: (status, _body, _context, headers) => {
          const timing = headers['server-timing'];
          if (recorder && status < 300 && typeof timing === 'string') {
            recorder.stages.add(parseServerTiming(timing));
          }
        },
      },
    ],
    setupClient: (client) => {
      client.on('response', (status: number, _bytes: number, durationMs: number) => {
        if (!recorder) return;
        recorder.lastAnswerAt = performance.now();
        if (status < 300) recorder.latencies.push(durationMs);
      });
    },
  });
  return instance;
}

if (config.warmupS > 0) await load({ durationS: config.warmupS });
const recorder: Recorder = { latencies: [], lastAnswerAt: 0, stages: new StageAverager() };
mark('measuring');
const cpuBefore = process.cpuUsage();
const started = performance.now();
const result = await load({
  durationS: config.durationS,
  ...(config.amount !== undefined ? { amount: config.amount } : {}),
  recorder,
});
// Our own clock: autocannon's `duration` is whole sampling ticks, and an `amount` run only ends on
// the tick after its last answer, so that run is timed to its last answer.
const endedAt =
  config.amount !== undefined && recorder.lastAnswerAt > 0 ? recorder.lastAnswerAt : performance.now();
const durationS = (endedAt - started) / 1000;
const cpu = process.cpuUsage(cpuBefore);
mark('measured');
const ok = result['2xx'];
const answer: LoadResult = {
  concurrency: config.concurrency,
  durationS,
  ok,
  non2xx: result.non2xx,
  errors: result.errors,
  timeouts: result.timeouts,
  statusCodes: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  throughput: ok / durationS,
  latency: summarizeLatencies(recorder.latencies),
  stages: recorder.stages.averages(),
  loadGeneratorCpuMs: (cpu.user + cpu.system) / 1000,
};
reportResult(answer);
