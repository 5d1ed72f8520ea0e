/**
 * The chaos run's load, in a process of its own: `concurrency` closed-loop clients, each POSTing
 * one short text at a time to /serve/<endpoint>. Like a Kubernetes Service in front of the
 * gateways, it sends only to gateways whose /health/ready answered 200 at the last poll (a new
 * connection per probe, every `readinessIntervalMs`), alternating over the ready ones; with none
 * ready a client records a failure ("no ready gateway", as a Service without endpoints refuses
 * the connection) and waits for the next poll. Nothing is retried. Every request's gateway, start,
 * end and outcome is recorded; SIGTERM stops sending, lets the requests in flight finish, and
 * reports them all (load-records.ts).
 */
import { Agent, request } from 'node:http';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import {
  type Ending,
  LoadRecorder,
  NO_GATEWAY,
  NO_READY_GATEWAY,
  OK,
  answerEnding,
  epochMs,
} from './load-records.js';

/** Settings from the parent. */
export interface ChaosLoadConfig {
  /** Gateway base URLs, e.g. http://127.0.0.1:8080; a request's gateway is its index here. */
  gateways: string[];
  /** POST path, e.g. /serve/sentiment. */
  path: string;
  concurrency: number;
  texts: string[];
  readinessIntervalMs: number;
  /** A probe without an answer after this long counts as not ready. */
  probeTimeoutMs: number;
  /** A request without an answer after this long is recorded as failed. */
  requestTimeoutMs: number;
}

const config = readChildConfig<ChaosLoadConfig>();
const recorder = new LoadRecorder();
const targets = config.gateways.map((url) => new URL(url));
const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: config.concurrency }));
const ready = targets.map(() => false);
let stopping = false;
let nextGateway = 0;
let nextText = 0;
/** Clients waiting for the next readiness poll to end. */
let pollWaiters: (() => void)[] = [];

function nextPoll(): Promise<void> {
  return new Promise((resolve) => pollWaiters.push(resolve));
}

function releasePollWaiters(): void {
  const waiters = pollWaiters;
  pollWaiters = [];
  for (const wake of waiters) wake();
}

const failedWith = (error: NodeJS.ErrnoException): Ending => ({
  outcome: error.code ?? error.message,
  message: error.message,
});

function send(gateway: number, body: string): Promise<Ending> {
  const target = targets[gateway]!;
  return new Promise((resolve) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path: config.path,
        method: 'POST',
        agent: agents[gateway],
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        timeout: config.requestTimeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve(answerEnding(res.statusCode ?? 0, Buffer.concat(chunks).toString())));
        res.on('error', (error: NodeJS.ErrnoException) => resolve(failedWith(error)));
      },
    );
    req.on('timeout', () => {
      resolve({ outcome: `no answer in ${config.requestTimeoutMs / 1000} s` });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(failedWith(error)));
    req.end(body);
  });
}

/** The next ready gateway in turn, or NO_GATEWAY. */
function pickGateway(): number {
  for (let tried = 0; tried < targets.length; tried++) {
    const gateway = nextGateway++ % targets.length;
    if (ready[gateway]) return gateway;
  }
  return NO_GATEWAY;
}

async function client(): Promise<void> {
  while (!stopping) {
    const startMs = epochMs();
    const gateway = pickGateway();
    if (gateway === NO_GATEWAY) {
      recorder.request(NO_GATEWAY, startMs, NO_READY_GATEWAY);
      await nextPoll();
      continue;
    }
    const text = config.texts[nextText++ % config.texts.length] ?? '';
    const ending = await send(gateway, JSON.stringify({ text }));
    recorder.request(gateway, startMs, ending.outcome, ending.message);
  }
}

/** A probe's outcome: OK for a 200 within the timeout, else the status and body, the timeout or the error. */
function probe(target: URL): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      { host: target.hostname, port: target.port, path: '/health/ready', agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve(
            res.statusCode === 200
              ? OK
              : `HTTP ${res.statusCode} ${Buffer.concat(chunks).toString().slice(0, 200)}`,
          ),
        );
        res.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      },
    );
    req.setTimeout(config.probeTimeoutMs, () => {
      resolve(`no answer in ${config.probeTimeoutMs} ms`);
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    req.end();
  });
}

/** The last probe outcome per gateway. */
const lastProbe = targets.map(() => '');
/** Gateways with a probe in flight: a slow one is not probed twice at once. */
const probing = targets.map(() => false);

/** Probes every gateway not being probed; wakes the clients waiting for a ready gateway. */
async function pollReadiness(): Promise<void> {
  await Promise.all(
    targets.map(async (target, gateway) => {
      if (probing[gateway]) return;
      probing[gateway] = true;
      const outcome = await probe(target);
      probing[gateway] = false;
      if (outcome !== lastProbe[gateway]) recorder.readinessChanged(gateway, outcome);
      lastProbe[gateway] = outcome;
      ready[gateway] = outcome === OK;
    }),
  );
  releasePollWaiters();
}

async function main(): Promise<void> {
  // The first verdicts before the first request, then one poll per interval.
  await pollReadiness();
  const timer = setInterval(() => void pollReadiness(), config.readinessIntervalMs);
  const stopped = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  const clients = Array.from({ length: config.concurrency }, () => client());
  mark('sending');
  await stopped;
  stopping = true;
  clearInterval(timer);
  releasePollWaiters();
  await Promise.all(clients);
  for (const agent of agents) agent.destroy();
  reportResult(recorder.result());
}

await main();
