import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigSnapshot } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { FileConfigSource } from './file-config-source.js';

describe('FileConfigSource', () => {
  it('delivers the validated snapshot in the file once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-source-'));
    const path = join(dir, 'snapshot.json');
    await writeFile(path, JSON.stringify({ revision: 7, models: [], endpoints: [] }));
    const seen: ConfigSnapshot[] = [];
    await new FileConfigSource(path).start((snapshot) => {
      seen.push(snapshot);
      return Promise.resolve();
    });
    expect(seen.map((s) => s.revision)).toEqual([7]);
  });

  it('names the file when it cannot be read or parsed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-source-'));
    const path = join(dir, 'broken.json');
    await writeFile(path, '{not json');
    await expect(new FileConfigSource(path).start(() => Promise.resolve())).rejects.toThrow(
      `cannot read config snapshot ${path}`,
    );
  });
});
