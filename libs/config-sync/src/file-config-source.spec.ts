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

  it('reports the keys the snapshot schema dropped, and still delivers the snapshot', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-source-'));
    const path = join(dir, 'typo.json');
    await writeFile(
      path,
      JSON.stringify({ revision: 3, models: [], endpoints: [], workerGroup: [], extra: { a: 1 } }),
    );
    const reports: string[] = [];
    const seen: number[] = [];
    await new FileConfigSource(path, (message) => reports.push(message)).start((snapshot) => {
      seen.push(snapshot.revision);
      return Promise.resolve();
    });
    expect(seen).toEqual([3]);
    expect(reports).toEqual([
      `config snapshot ${path}: ignored keys this node does not know (a typo, or a field of a newer registry): workerGroup, extra`,
    ]);
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
