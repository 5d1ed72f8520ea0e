/**
 * Issue 45, drill 3: does the gateway keep serving a well-behaved client while others abuse it?
 * One worker and one gateway (real processes, tiny fixtures). Each round measures a well-behaved
 * client (4 closed-loop callers of /serve/sentiment) alone, then again while, at once:
 * 10,000 keep-alive connections that made one request and then sit idle; 50 slowloris clients
 * trickling headers a byte at a time (each reconnects when the gateway closes on it); 5 clients
 * that ask /serve/poet for a stream and never read it. Reports the well-behaved p50 and p99 with
 * and without the abuse (median and range over the rounds), how the slowloris connections ended,
 * and the gateway's open descriptors and RSS. Not a test: `npm run abuse`.
 */
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { type Socket, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startGateway, startWorkerWithSnapshot, writeSnapshot } from '@modelgate/testing';

const ROUNDS = 3;
const MEASURE_MS = 8000;
const CALLERS = 4;
const IDLE_CONNECTIONS = 10_000;
const SLOWLORIS = 50;
const NON_READERS = 5;
const HEADERS_TIMEOUT_MS = 2000;

interface Measured {
  p50: number;
  p99: number;
  requests: number;
  failed: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function wellBehaved(url: string): Promise<Measured> {
  const latencies: number[] = [];
  let failed = 0;
  const until = performance.now() + MEASURE_MS;
  const caller = async (index: number) => {
    for (let i = 0; performance.now() < until; i++) {
      const started = performance.now();
      const response = await fetch(`${url}/serve/sentiment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `caller ${index} says the day ${i} was fine` }),
      }).catch(() => undefined);
      if (response?.status === 200) latencies.push(performance.now() - started);
      else failed++;
      await response?.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CALLERS }, (_, i) => caller(i)));
  latencies.sort((a, b) => a - b);
  return {
    p50: quantile(latencies, 0.5),
    p99: quantile(latencies, 0.99),
    requests: latencies.length,
    failed,
  };
}

/** A connection that made one keep-alive request and now sits idle. */
function idleConnection(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('error', reject);
    socket.once('connect', () =>
      socket.write('GET /health/live HTTP/1.1\r\nHost: gw\r\nConnection: keep-alive\r\n\r\n'),
    );
    socket.once('data', () => resolve(socket));
  });
}

/** Slowloris clients: each trickles headers, and starts over when the gateway closes on it. */
function slowloris(port: number, ends: Map<string, number>): () => void {
  let running = true;
  const sockets = new Set<Socket>();
  const start = () => {
    if (!running) return;
    const socket = connect(port, '127.0.0.1');
    sockets.add(socket);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    const timer = setInterval(() => socket.writable && socket.write('x'), 200);
    socket.once('connect', () => socket.write('POST /serve/sentiment HTTP/1.1\r\nHost: gw\r\nx-pad: '));
    socket.once('close', () => {
      clearInterval(timer);
      sockets.delete(socket);
      if (!running) return;
      const how = answer.split('\r\n')[0] || 'closed without an answer';
      ends.set(how, (ends.get(how) ?? 0) + 1);
      start();
    });
  };
  for (let i = 0; i < SLOWLORIS; i++) start();
  return () => {
    running = false;
    for (const socket of sockets) socket.destroy();
  };
}

/** Clients that ask for a generation stream and never read a byte of it. */
function nonReaders(port: number): Socket[] {
  const body = JSON.stringify({
    text: 'Once upon a time',
    stream: true,
    parameters: { max_new_tokens: 400 },
  });
  return Array.from({ length: NON_READERS }, () => {
    const socket = connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    socket.once('connect', () => {
      socket.write(
        `POST /serve/poet HTTP/1.1\r\nHost: gw\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      socket.pause();
    });
    return socket;
  });
}

async function processFacts(pid: number): Promise<{ fds: number; rssMiB: number }> {
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return { fds, rssMiB: Math.round(rssKiB / 1024) };
}

function median(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted[Math.floor((sorted.length - 1) / 2)] ?? NaN;
  return `${mid.toFixed(2)} (${sorted[0]?.toFixed(2)}–${sorted.at(-1)?.toFixed(2)})`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'modelgate-abuse-'));
  const grpcPort = await freePort();
  const snapshot = await writeSnapshot(
    dir,
    [
      { name: 'bert', fixture: 'tiny-bert-sst2' },
      { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation' },
    ],
    {
      workerGroups: [{ name: 'default', addresses: [`127.0.0.1:${grpcPort}`] }],
      endpoints: [
        {
          name: 'sentiment',
          task: 'text-classification',
          routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
        },
        { name: 'poet', task: 'text-generation', routes: [{ model: 'gpt:1', weight: 100, role: 'primary' }] },
      ],
    },
  );
  const worker = await startWorkerWithSnapshot(snapshot, { WORKER_GRPC_PORT: String(grpcPort) });
  const gateway = await startGateway(snapshot, { GATEWAY_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS) });
  const port = Number(new URL(gateway.url).port);
  const pid = gateway.process.child.pid!;
  const rows: { round: number; alone: Measured; abused: Measured; fds: number; rssMiB: number }[] = [];
  const ends = new Map<string, number>();
  const before = await processFacts(pid);
  try {
    await wellBehaved(gateway.url); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      const alone = await wellBehaved(gateway.url);
      const idle: Socket[] = [];
      for (let i = 0; i < IDLE_CONNECTIONS; i += 500) {
        idle.push(...(await Promise.all(Array.from({ length: 500 }, () => idleConnection(port)))));
      }
      const stopSlowloris = slowloris(port, ends);
      const streams = nonReaders(port);
      const abused = await wellBehaved(gateway.url);
      const facts = await processFacts(pid);
      stopSlowloris();
      for (const socket of [...idle, ...streams]) socket.destroy();
      rows.push({ round, alone, abused, ...facts });
      process.stdout.write(
        `round ${round}: alone p50 ${alone.p50.toFixed(2)} p99 ${alone.p99.toFixed(2)} ms; abused p50 ${abused.p50.toFixed(2)} p99 ${abused.p99.toFixed(2)} ms; gateway ${facts.fds} fds, ${facts.rssMiB} MiB\n`,
      );
    }
  } finally {
    await gateway.stop();
    await worker.stop();
  }
  const ratio = rows.map((r) => r.abused.p99 / r.alone.p99);
  const lines = [
    `# Abusive clients (issue 45, drill 3) — ${new Date().toISOString().slice(0, 10)}`,
    '',
    `\`npm run abuse\`; one worker and one gateway (GATEWAY_HEADERS_TIMEOUT_MS ${HEADERS_TIMEOUT_MS}, other limits default), tiny-bert-sst2 behind /serve/sentiment, tiny-gpt2 behind /serve/poet. ${ROUNDS} rounds; each measures ${CALLERS} closed-loop well-behaved callers for ${MEASURE_MS / 1000} s alone, then again beside ${IDLE_CONNECTIONS} idle keep-alive connections (one request each, then silence), ${SLOWLORIS} slowloris clients (headers a byte per 200 ms, reconnecting when closed) and ${NON_READERS} clients that never read their generation stream.`,
    '',
    '| round | alone p50 ms | alone p99 ms | abused p50 ms | abused p99 ms | p99 abused ÷ alone | failed (alone / abused) | gateway fds | gateway RSS MiB |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.round} | ${r.alone.p50.toFixed(2)} | ${r.alone.p99.toFixed(2)} | ${r.abused.p50.toFixed(2)} | ${r.abused.p99.toFixed(2)} | ${(r.abused.p99 / r.alone.p99).toFixed(2)}× | ${r.alone.failed} / ${r.abused.failed} | ${r.fds} | ${r.rssMiB} |`,
    ),
    '',
    `- p99 with the abuse ÷ alone, median (min–max) over the rounds: ${median(ratio)}× (target ≤ 2×).`,
    `- Gateway before the rounds: ${before.fds} fds, ${before.rssMiB} MiB.`,
    `- How the slowloris connections ended (each reconnected): ${[...ends].map(([how, n]) => `${n} × \`${how}\``).join(', ') || 'none ended'}.`,
    '',
  ];
  const out = join('bench', 'results', `${new Date().toISOString().slice(0, 10)}-abusive-clients.md`);
  await writeFile(out, lines.join('\n'));
  process.stdout.write(`${lines.join('\n')}\nwrote ${out}\n`);
}

await main();
