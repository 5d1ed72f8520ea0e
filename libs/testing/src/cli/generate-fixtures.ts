// `npm run fixtures [name...]`: generates fixtures into the cache (all of them by default) and
// prints each directory with its files, so benchmarks and manual runs can find them.
import { performance } from 'node:perf_hooks';
import { FIXTURE_NAMES, isFixtureName } from '../fixtures/fixture-specs.js';
import { ensureFixtureWithStatus } from '../fixtures/ensure-fixture.js';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const lines: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) lines.push(...(await listFiles(join(dir, entry.name), relative)));
    else if (!entry.name.startsWith('.')) {
      const { size } = await stat(join(dir, entry.name));
      lines.push(`  ${relative} (${size} bytes)`);
    }
  }
  return lines;
}

async function main(args: readonly string[]): Promise<number> {
  const unknown = args.filter((name) => !isFixtureName(name));
  if (unknown.length > 0) {
    console.error(`Unknown fixture(s): ${unknown.join(', ')}. Known: ${FIXTURE_NAMES.join(', ')}`);
    return 2;
  }
  for (const name of args.length > 0 ? args : FIXTURE_NAMES) {
    const started = performance.now();
    const { dir, generated } = await ensureFixtureWithStatus(name);
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    console.log(`${name}: ${generated ? 'generated' : 'already current'} in ${seconds} s at ${dir}`);
    console.log((await listFiles(dir)).join('\n'));
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
