import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { MODELGATE_VERSION } from './version.js';

describe('MODELGATE_VERSION', () => {
  it('is the version of the root package and of every app package', async () => {
    const versionOf = async (path: string) =>
      (JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;
    const packages = [
      '../../../package.json',
      ...['cli', 'gateway', 'registry', 'worker'].map((app) => `../../../apps/${app}/package.json`),
    ];
    for (const path of packages) expect(await versionOf(path), path).toBe(MODELGATE_VERSION);
  });
});
