// RegistryConfigSource against a real HTTP server standing in for the registry behind a path
// prefix (an ingress at http://host/modelgate): the snapshot is fetched under that prefix.
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { type ConfigSnapshot } from '@modelgate/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryConfigSource } from '../src/registry-config-source.js';

describe('RegistryConfigSource', () => {
  const paths: string[] = [];
  const server = createServer((request, response) => {
    paths.push(request.url ?? '');
    if (request.url !== '/modelgate/v1/config/snapshot') {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ revision: 7, models: [], endpoints: [] }));
  });
  let url: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("fetches the snapshot under the registry URL's path, as heartbeats and admin calls go", async () => {
    const errors: string[] = [];
    const source = new RegistryConfigSource({
      registryUrl: `${url}/modelgate/`,
      reconcileIntervalMs: 60_000,
      onError: (message) => errors.push(message),
    });
    const applied = new Promise<ConfigSnapshot>((resolve) => {
      void source.start((snapshot) => {
        resolve(snapshot);
        return Promise.resolve();
      });
    });
    try {
      expect((await applied).revision).toBe(7);
      // It used to ask http://host/v1/config/snapshot, dropping the prefix, and kept no config.
      expect(paths).toEqual(['/modelgate/v1/config/snapshot']);
      expect(errors).toEqual([]);
    } finally {
      await source.stop();
    }
  });
});
