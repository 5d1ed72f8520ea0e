/**
 * The generation suite's load generator against modelgate, in a process of its own: `c` clients in
 * a closed loop, each sending the step's next request as a streaming
 * `POST /serve/<endpoint>` (`{"text", "parameters": {"max_new_tokens", "do_sample": false},
 * "stream": true}`) over a keep-alive connection and reading the Server-Sent Events as they come:
 * the first delta is the time to first token, the `end` event ends the request and says how many
 * tokens it generated. Marks `measuring` / `measured` around the measured requests (after one
 * warm-up request per client with few new tokens) so the parent meters CPU over exactly them.
 */
import { Agent, request as httpRequest } from 'node:http';
import { loadTokenizerFromDir } from '@modelgate/processing';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import { type GenerationMode, type GenerationStepResult } from '../generation-results.js';
import {
  type GenerationRequest,
  type GenerationWorkloadSpec,
  generationWorkload,
} from '../generation-workload.js';
import { type LoadResult } from '../load-result.js';
import { StageAverager, summarizeLatencies } from '../stats.js';

/** Settings from the parent. */
export interface SseLoadConfig {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  /** POST path, e.g. /serve/generate */
  path: string;
  fixtureDir: string;
  workload: GenerationWorkloadSpec;
  concurrency: number;
  /** Requests of the measured step (the workload's first n). */
  requests: number;
  /** max_new_tokens of the warm-up requests (one per client). */
  warmupNewTokens: number;
  /** What the results are labelled with: modelgate, or the naive server speaking its events. @defaultValue modelgate */
  mode?: GenerationMode;
}

/** What the child reports: the generation step, plus the load-result shape every load step has. */
export type SseLoadResult = LoadResult & {
  generation: Omit<GenerationStepResult, 'cpuMs' | 'otherCores' | 'attempts'>;
};

interface Outcome {
  request: GenerationRequest;
  sentAt: number;
  firstDeltaAt?: number;
  endedAt?: number;
  status: number;
  generated?: number;
  promptTokens?: number;
  error?: string;
}

const config = readChildConfig<SseLoadConfig>();
const tokenizer = await loadTokenizerFromDir(config.fixtureDir);
const workload = generationWorkload(tokenizer, config.workload);
const agent = new Agent({ keepAlive: true, maxSockets: config.concurrency });
const target = new URL(config.path, config.url);

/** Sends one streaming request; resolves when the stream ends (never rejects). */
function send(request: GenerationRequest): Promise<Outcome> {
  const outcome: Outcome = { request, sentAt: performance.now(), status: 0 };
  const body = JSON.stringify({
    text: request.text,
    parameters: { max_new_tokens: request.maxNewTokens, do_sample: false },
    stream: true,
  });
  return new Promise((resolve) => {
    const done = (error?: string) => {
      if (error !== undefined && outcome.error === undefined) outcome.error = error;
      outcome.endedAt ??= performance.now();
      resolve(outcome);
    };
    const req = httpRequest(
      target,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      },
      (res) => {
        outcome.status = res.statusCode ?? 0;
        res.setEncoding('utf8');
        let buffered = '';
        res.on('data', (chunk: string) => {
          if (outcome.status !== 200) {
            // An error answer: its JSON body says why.
            outcome.error = `${outcome.error ?? ''}${chunk}`;
            return;
          }
          buffered += chunk;
          for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
            onEvent(outcome, buffered.slice(0, end));
            buffered = buffered.slice(end + 2);
          }
        });
        res.on('end', () =>
          done(
            outcome.endedAt === undefined
              ? `stream ended without an end event (HTTP ${outcome.status})`
              : undefined,
          ),
        );
        res.on('error', (error) => done(error.message));
      },
    );
    req.on('error', (error) => done(error.message));
    req.end(body);
  });
}

/** One SSE event: `event:` (absent for deltas) and `data:` lines. */
function onEvent(outcome: Outcome, block: string): void {
  let name = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) name = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return; // a comment (keep-alive)
  const now = performance.now();
  if (name === 'message') {
    outcome.firstDeltaAt ??= now;
    return;
  }
  const payload = JSON.parse(data.join('\n')) as Record<string, unknown>;
  if (name === 'end') {
    outcome.endedAt = now;
    outcome.generated = Number(payload.generated_tokens);
    outcome.promptTokens = Number(payload.prompt_tokens);
  } else if (name === 'error') {
    outcome.error = JSON.stringify(payload);
  }
}

/** `requests` from `concurrency` closed-loop clients. */
async function run(requests: readonly GenerationRequest[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  let next = 0;
  const client = async () => {
    for (let i = next++; i < requests.length; i = next++) {
      const request = requests[i];
      if (request) outcomes.push(await send(request));
    }
  };
  await Promise.all(Array.from({ length: config.concurrency }, client));
  return outcomes;
}

const succeeded = (o: Outcome) => o.status === 200 && o.error === undefined && o.generated !== undefined;

const warmup = await run(
  workload
    .slice(0, config.concurrency)
    .map((r) => ({ ...r, maxNewTokens: Math.min(r.maxNewTokens, config.warmupNewTokens) })),
);
const warmupFailure = warmup.find((o) => !succeeded(o));
if (warmupFailure)
  throw new Error(`warm-up request failed: HTTP ${warmupFailure.status} ${warmupFailure.error ?? ''}`);

mark('measuring');
const cpuBefore = process.cpuUsage();
const startedAt = performance.now();
const outcomes = await run(workload.slice(0, config.requests));
const endedAt = Math.max(...outcomes.map((o) => o.endedAt ?? 0));
const cpu = process.cpuUsage(cpuBefore);
mark('measured');

const ok = outcomes.filter(succeeded);
const failures = outcomes.filter((o) => !succeeded(o));
const failureReasons: Record<string, number> = {};
for (const failure of failures) {
  const reason = `${failure.status === 200 ? '' : `HTTP ${failure.status} `}${failure.error ?? ''}`.slice(
    0,
    160,
  );
  failureReasons[reason] = (failureReasons[reason] ?? 0) + 1;
}
const durationS = (endedAt - startedAt) / 1000;
const generatedTokens = ok.reduce((sum, o) => sum + (o.generated ?? 0), 0);
const statusCodes: Record<string, number> = {};
for (const o of outcomes) statusCodes[String(o.status)] = (statusCodes[String(o.status)] ?? 0) + 1;
const latency = summarizeLatencies(ok.map((o) => (o.endedAt ?? NaN) - o.sentAt));
const answer: SseLoadResult = {
  concurrency: config.concurrency,
  durationS,
  ok: ok.length,
  non2xx: outcomes.filter((o) => o.status !== 200).length,
  errors: outcomes.filter((o) => o.status === 200 && !succeeded(o)).length,
  timeouts: 0,
  statusCodes,
  throughput: ok.length / durationS,
  latency,
  stages: new StageAverager().averages(),
  loadGeneratorCpuMs: (cpu.user + cpu.system) / 1000,
  generation: {
    mode: config.mode ?? 'modelgate',
    concurrency: config.concurrency,
    requests: outcomes.length,
    ok: ok.length,
    failed: failures.length,
    ...(failures.length > 0 ? { failures: failureReasons } : {}),
    promptTokens: ok.reduce((sum, o) => sum + (o.promptTokens ?? 0), 0),
    generatedTokens,
    shortRequests: ok.filter((o) => o.generated !== o.request.maxNewTokens).length,
    promptMismatches: ok.filter((o) => o.promptTokens !== o.request.promptIds.length).length,
    durationS,
    tokensPerSec: generatedTokens / durationS,
    // A stream whose text all came with its end event has its first token there.
    timeToFirstToken: summarizeLatencies(ok.map((o) => (o.firstDeltaAt ?? o.endedAt ?? NaN) - o.sentAt)),
    latency,
  },
};
reportResult(answer);
