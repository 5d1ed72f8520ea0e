import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ServiceProcess,
  freePort,
  GATEWAY_MAIN,
  startGateway,
  startServiceProcess,
  waitFor,
  writeSnapshot,
} from '@modelgate/testing';
import { afterEach, describe, expect, it } from 'vitest';

const REFUSAL =
  'config revision 1 lists workerGroups, and GATEWAY_WORKER_ADDRESSES gives worker addresses too';

describe('gateway worker addresses: from GATEWAY_WORKER_ADDRESSES or from the snapshot, not both', () => {
  let running: ServiceProcess | undefined;

  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });

  it('applies a snapshot listing workerGroups, and refuses it beside GATEWAY_WORKER_ADDRESSES', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-worker-addresses-'));
    const snapshot = await writeSnapshot(dir, [], {
      workerGroups: [{ name: 'default', addresses: ['127.0.0.1:1'] }],
    });

    const alone = await startGateway(snapshot);
    running = alone.process;
    const applied = (await (await fetch(`${alone.url}/health/ready`)).json()) as { revision: number | null };
    expect(applied.revision).toBe(1);
    await alone.stop();

    const port = await freePort();
    running = startServiceProcess(GATEWAY_MAIN, {
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      GATEWAY_WORKERS: '1',
      GATEWAY_CONFIG_FILE: snapshot,
      GATEWAY_CACHE_DIR: join(dir, 'cache'),
      GATEWAY_WORKER_ADDRESSES: 'default=127.0.0.1:2',
      GATEWAY_LOG_LEVEL: 'warn',
    });
    const both = running;
    await waitFor(() => Promise.resolve(both.output().includes(REFUSAL)), {
      timeoutMs: 60_000,
      describe: () => both.output(),
    });
    expect(both.output()).toContain('keep one of the two');
    // The refusal may come before the server listens.
    let ready: Response | undefined;
    await waitFor(
      async () => {
        ready = await fetch(`http://127.0.0.1:${port}/health/ready`).catch(() => undefined);
        return ready !== undefined;
      },
      { timeoutMs: 30_000, describe: () => both.output() },
    );
    expect(ready?.status).toBe(503);
    expect(((await ready?.json()) as { revision: number | null }).revision).toBeNull();
  });
});
