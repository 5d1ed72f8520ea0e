import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EmptyConfigSource, FileConfigSource } from './file-config-source.js';
import { createNodeConfigSource, registryArtifactAccess } from './node-config-source.js';
import { RegistryConfigSource } from './registry-config-source.js';

const base = { keyPrefix: 'mg', reconcileIntervalMs: 1000, onError: () => undefined };

describe('createNodeConfigSource', () => {
  it('follows the registry when one is named, else the snapshot file, else nothing', () => {
    expect(
      createNodeConfigSource({ ...base, registryUrl: 'http://r:8081', configFile: '/s.json' }),
    ).toBeInstanceOf(RegistryConfigSource);
    expect(createNodeConfigSource({ ...base, configFile: '/s.json' })).toBeInstanceOf(FileConfigSource);
    expect(createNodeConfigSource(base)).toBeInstanceOf(EmptyConfigSource);
  });

  it("reports a config file's unknown keys through onError", async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'node-config-')), 'snapshot.json');
    await writeFile(path, JSON.stringify({ revision: 1, models: [], endpoints: [], modles: [] }));
    const reported: string[] = [];
    const source = createNodeConfigSource({
      ...base,
      configFile: path,
      onError: (message) => reported.push(message),
    });
    await source.start(() => Promise.resolve());
    expect(reported).toEqual([expect.stringContaining('ignored a key this node does not know')]);
    expect(reported[0]).toMatch(/: modles$/);
  });
});

describe('registryArtifactAccess', () => {
  it('exempts the registry host from the address guard and sends its token to its origin only', () => {
    expect(registryArtifactAccess('http://127.0.0.1:8081/', 'tok', ['models.internal'])).toEqual({
      allowedHosts: ['models.internal', '127.0.0.1'],
      bearerTokens: { 'http://127.0.0.1:8081': 'tok' },
    });
    expect(registryArtifactAccess(undefined, 'tok', [])).toEqual({ allowedHosts: [] });
  });
});
