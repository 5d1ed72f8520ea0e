import {
  type TcpProxy,
  startTcpProxy,
  waitFor,
  type RunningRegistry,
  TEST_DATABASE_URL,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiErrorBody } from '@modelgate/contracts';
import { type Isolation, isolate, startRegistryInProcess } from './support/registry-harness.js';

describe('registry admin API while its database is unreachable', () => {
  let isolation: Isolation;
  let registry: RunningRegistry;
  let proxy: TcpProxy;

  beforeAll(async () => {
    isolation = await isolate();
    const database = new URL(TEST_DATABASE_URL);
    proxy = await startTcpProxy(database.hostname, Number(database.port || 5432));
    database.host = `127.0.0.1:${proxy.port}`;
    registry = await startRegistryInProcess({ ...isolation.env, DATABASE_URL: database.toString() });
  });

  afterAll(async () => {
    proxy?.restore();
    await registry?.stop();
    await proxy?.close();
    await isolation?.dispose();
  });

  it('answers 503 UNAVAILABLE with Retry-After and a message, not 500, and recovers when it returns', async () => {
    expect((await registry.admin.get('/v1/models')).status).toBe(200);
    proxy.cut();
    const down = await registry.admin.get<ApiErrorBody>('/v1/models');
    expect(down.status).toBe(503);
    expect(down.body.error.code).toBe('UNAVAILABLE');
    expect(down.body.error.message).toContain('database is unavailable');
    expect(down.headers.get('retry-after')).toBe('2');
    proxy.restore();
    let status = 0;
    await waitFor(async () => (status = (await registry.admin.get('/v1/models')).status) === 200, {
      describe: () => `GET /v1/models still answers ${status}`,
    });
  });
});
