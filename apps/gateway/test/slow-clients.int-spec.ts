import { mkdtemp } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type RunningGateway,
  type RunningWorker,
  freePort,
  startGateway,
  startWorkerWithSnapshot,
  writeSnapshot,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HEADERS_TIMEOUT_MS = 2000;
const RECEIVE_TIMEOUT_MS = 4000;

/** What a client that trickles its request one byte at a time saw, once the server closed on it. */
interface Trickled {
  /** What the server sent before it closed. */
  answer: string;
  /** Bytes the client had sent when the server closed (it never stopped on its own). */
  sent: number;
}

/**
 * Sends `head` at once, then `rest` one byte every 50 ms, never finishing it (the rest is longer
 * than the timeouts allow); resolves when the server closes the connection.
 */
function trickle(url: string, head: string, rest: string): Promise<Trickled> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      clearInterval(timer);
      if (sent >= rest.length) reject(new Error('the client ran out of bytes before the server closed'));
      else resolve({ answer, sent });
    });
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent < rest.length && socket.writable) socket.write(rest[sent++]!);
      }, 50);
    });
  });
}

/**
 * Sends one keep-alive GET of /health/live on a new connection; resolves with what the server sent
 * once its answer's head has arrived (`answered`, the client then closes) or once the server has
 * closed the connection (`closed`; the client never does).
 */
function keepAliveRequest(url: string, until: 'answered' | 'closed'): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (until === 'answered' && answer.includes('\r\n\r\n')) {
        socket.destroy();
        resolve(answer);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
    socket.on('connect', () =>
      socket.write('GET /health/live HTTP/1.1\r\nHost: gw\r\nConnection: keep-alive\r\n\r\n'),
    );
  });
}

describe('gateway: clients that send their request too slowly, or hold a connection idle', () => {
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let snapshot: string;

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-slow-'));
    const port = await freePort();
    snapshot = await writeSnapshot(dir, [{ name: 'bert', fixture: 'tiny-bert-sst2' }], {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${port}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
      ],
    });
    worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(port) });
    gateway = await startGateway(snapshot, {
      GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
      GATEWAY_RECEIVE_TIMEOUT_MS: String(RECEIVE_TIMEOUT_MS),
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
  });

  /** Serves `count` well-behaved requests one after another; their statuses. */
  async function wellBehaved(count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      const response = await fetch(`${gateway.url}/serve/sentiment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `a fine day number ${i}` }),
      });
      statuses.push(response.status);
      await response.arrayBuffer();
    }
    return statuses;
  }

  it('answers 408 and closes on a client trickling its headers (slowloris), serving others meanwhile', async () => {
    const events: string[] = [];
    const slow = trickle(
      gateway.url,
      'POST /serve/sentiment HTTP/1.1\r\nHost: gw\r\n',
      'x-padding: '.repeat(400),
    ).then((result) => {
      events.push('slow closed');
      return result;
    });
    // Five quick requests against a 2 s limit: a wide margin, even on a loaded machine.
    const others = wellBehaved(5).then((statuses) => {
      events.push('others served');
      return statuses;
    });
    const [result, statuses] = await Promise.all([slow, others]);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    expect(events).toEqual(['others served', 'slow closed']);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(result.answer).toContain('"code":"DEADLINE_EXCEEDED"');
    expect(result.answer).toContain('"message":"the request did not arrive in time"');
  });

  it('answers 408 and closes on a body trickled a byte at a time past GATEWAY_RECEIVE_TIMEOUT_MS', async () => {
    const body = JSON.stringify({ text: 'x'.repeat(4000) });
    const head =
      'POST /serve/sentiment HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const result = await trickle(gateway.url, head, body);
    expect(result.answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    // Past the headers' limit: the body, not the headers, was cut short.
    expect(result.sent).toBeGreaterThan(0);
    expect(await wellBehaved(3)).toEqual([200, 200, 200]);
  });

  it('keeps an idle keep-alive connection 72 s by default, and says so in the Keep-Alive header', async () => {
    const answer = await keepAliveRequest(gateway.url, 'answered');
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toMatch(/\r\nkeep-alive: timeout=72\r\n/i);
  });

  it('closes a keep-alive connection left idle past GATEWAY_KEEP_ALIVE_TIMEOUT_MS, after answering on it', async () => {
    const idleGateway = await startGateway(snapshot, { GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '1000' });
    try {
      // The client never closes: the promise ends only when the gateway does.
      const answer = await keepAliveRequest(idleGateway.url, 'closed');
      expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      expect(answer).toMatch(/\r\nkeep-alive: timeout=1\r\n/i);
      expect(answer).toContain('"status":');
    } finally {
      await idleGateway.stop();
    }
  });
});
