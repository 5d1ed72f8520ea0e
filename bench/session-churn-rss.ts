/**
 * Does onnxruntime-node give memory back when a session is released? The soak (issue 45, drill 4)
 * saw workers' RSS climb while they replaced an image model's version every 3 minutes, with V8's
 * heap flat. This replays that churn without modelgate: one process creates a session of a
 * fixture, runs it at batch 1, 2, 4 and 8, releases it, and prints its RSS every 10 cycles — a
 * line that keeps climbing is a leak, one that levels off is the allocator keeping freed memory.
 *
 *   npx tsx bench/session-churn-rss.ts [fixture] [cycles]     (default tiny-vit, 60)
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureFixture, getFixtureSpec, imageSpecOf } from '@modelgate/fixtures';
import * as ort from 'onnxruntime-node';

const fixture = process.argv[2] ?? 'tiny-vit';
const cycles = Number(process.argv[3] ?? 60);
const MiB = 1024 * 1024;

function rssMiB(): number {
  const kib = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
  return Number(kib) / 1024;
}

const size = imageSpecOf(getFixtureSpec(fixture)).size;
const path = join(await ensureFixture(fixture), 'onnx', 'model.onnx');
const readings: string[] = [];
for (let cycle = 0; cycle <= cycles; cycle++) {
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  for (const batch of [1, 2, 4, 8]) {
    const pixels = new ort.Tensor('float32', new Float32Array(batch * 3 * size * size), [
      batch,
      3,
      size,
      size,
    ]);
    await session.run({ [session.inputNames[0]!]: pixels });
  }
  await session.release();
  if (cycle % 10 === 0) readings.push(`${cycle}: ${rssMiB().toFixed(1)} MiB`);
}
process.stdout.write(
  `${fixture}, ${cycles} create/run/release cycles, RSS after cycle ${readings.join(', ')}; heap ${(process.memoryUsage().heapUsed / MiB).toFixed(1)} MiB\n`,
);
