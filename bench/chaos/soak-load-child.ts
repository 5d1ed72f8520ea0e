/**
 * The soak's load, in a process of its own: closed-loop clients per kind of request (SOAK_TRAFFIC),
 * alternating over the gateways, nothing retried. A request is OK when answered 200 and, for a
 * streamed generation, when its stream ended with the `end` event (an `error` event, or a stream
 * cut short, is a failure). SIGTERM stops sending, lets the requests in flight finish and reports
 * the tally (soak-tally.ts).
 */
import { Agent, request } from 'node:http';
import { mark, readChildConfig, reportResult } from '../child-process.js';
import { IMAGE_WORKLOAD, imageJpegs } from '../image-workload.js';
import { qaBodies } from '../qa-bodies.js';
import { SENTENCES } from '../sentences.js';
import { type Ending, answerEnding, epochMs } from './load-records.js';
import { SOAK_KINDS, SOAK_NEW_TOKENS, SOAK_TRAFFIC, type SoakKind } from './soak-mix.js';
import { SoakTally } from './soak-tally.js';

/** Settings from the parent. */
export interface SoakLoadConfig {
  gateways: string[];
  /** A request without an answer after this long is recorded as failed. */
  requestTimeoutMs: number;
}

interface Body {
  payload: Buffer;
  contentType: string;
  streamed: boolean;
}

const json = (value: unknown, streamed = false): Body => ({
  payload: Buffer.from(JSON.stringify(value)),
  contentType: 'application/json',
  streamed,
});

async function bodiesOf(kind: SoakKind): Promise<Body[]> {
  switch (kind) {
    case 'classification':
      return SENTENCES.map((text) => json({ text }));
    case 'question-answering':
      return qaBodies(SENTENCES, { contextSentences: 4 }).map((body) => json(body));
    case 'generation':
      return SENTENCES.map((text, i) =>
        json({ text, parameters: { max_new_tokens: SOAK_NEW_TOKENS }, stream: i % 2 === 1 }, i % 2 === 1),
      );
    case 'image':
      return (await imageJpegs(IMAGE_WORKLOAD)).map((payload) => ({
        payload,
        contentType: 'image/jpeg',
        streamed: false,
      }));
  }
}

/** An answer's ending: the error for a status other than 200; a stream must end with its `end` event. */
function soakEnding(status: number, text: string, streamed: boolean): Ending {
  if (status !== 200 || !streamed) return answerEnding(status, text);
  if (/^event: error$/m.test(text)) return { outcome: 'stream error event', message: text.slice(-300) };
  if (!/^event: end$/m.test(text)) return { outcome: 'stream without end event', message: text.slice(-300) };
  return answerEnding(status, text);
}

const config = readChildConfig<SoakLoadConfig>();
const targets = config.gateways.map((url) => new URL(url));
const clientCount = SOAK_KINDS.reduce((sum, kind) => sum + SOAK_TRAFFIC[kind].clients, 0);
const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: clientCount }));
let nextGateway = 0;
let stopping = false;

function send(path: string, body: Body): Promise<Ending> {
  const gateway = nextGateway++ % targets.length;
  const target = targets[gateway]!;
  return new Promise((resolve) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        path,
        method: 'POST',
        agent: agents[gateway],
        headers: { 'content-type': body.contentType, 'content-length': body.payload.length },
        timeout: config.requestTimeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve(soakEnding(res.statusCode ?? 0, Buffer.concat(chunks).toString(), body.streamed)),
        );
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ outcome: error.code ?? error.message, message: error.message }),
        );
      },
    );
    req.on('timeout', () => {
      resolve({ outcome: `no answer in ${config.requestTimeoutMs / 1000} s` });
      req.destroy();
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ outcome: error.code ?? error.message, message: error.message }),
    );
    req.end(body.payload);
  });
}

async function client(tally: SoakTally, kind: SoakKind, bodies: Body[], offset: number): Promise<void> {
  let next = offset;
  while (!stopping) {
    const body = bodies[next++ % bodies.length]!;
    const startMs = epochMs();
    const ending = await send(SOAK_TRAFFIC[kind].path, body);
    tally.record(kind, startMs, epochMs(), ending.outcome, ending.message);
  }
}

async function main(): Promise<void> {
  const bodies = new Map<SoakKind, Body[]>();
  for (const kind of SOAK_KINDS) bodies.set(kind, await bodiesOf(kind));
  const tally = new SoakTally(SOAK_KINDS, epochMs());
  const stopped = new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
  const clients = SOAK_KINDS.flatMap((kind) =>
    Array.from({ length: SOAK_TRAFFIC[kind].clients }, (_, i) =>
      client(tally, kind, bodies.get(kind)!, i * 7),
    ),
  );
  mark('sending');
  await stopped;
  stopping = true;
  await Promise.all(clients);
  for (const agent of agents) agent.destroy();
  reportResult(tally.result());
}

await main();
