// The process harness: a service that never becomes ready is killed before the start fails, so
// no test leaves a process behind (a worker refusing its config once outlived a CI run).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startServiceProcess, waitForService } from '../src/harness/service-process.js';

describe('waitForService', () => {
  it('kills a service that never passes its check, then throws with its output', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'service-process-'));
    const script = join(dir, 'never-ready.mjs');
    await writeFile(script, "console.log('starting, never ready'); setInterval(() => {}, 1000);\n");
    const service = startServiceProcess(script, {});
    await expect(waitForService(service, () => false, 300)).rejects.toThrow(/starting, never ready/);
    expect(await service.exited).toBe('SIGKILL');
  });

  it('leaves a service that passes its check running', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'service-process-'));
    const script = join(dir, 'ready.mjs');
    await writeFile(script, "console.log('ready'); setInterval(() => {}, 1000);\n");
    const service = startServiceProcess(script, {});
    await waitForService(service, () => service.output().includes('ready'), 10_000);
    expect(service.child.exitCode).toBeNull();
    expect(await service.stop('SIGTERM')).toBe('SIGTERM');
  });
});
