import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { answer, run, stubRegistry } from '../test/support/in-process-cli.js';

describe('modelgate --context and config', () => {
  const fetchMock = stubRegistry();
  let file: string;

  beforeEach(async () => {
    file = join(await mkdtemp(join(tmpdir(), 'modelgate-contexts-')), 'nested', 'config.yaml');
    vi.stubEnv('MODELGATE_CONFIG', file);
  });

  const calledWith = (): { url: string; authorization: string | null } => {
    const [url, init] = fetchMock.mock.calls.at(-1) ?? [];
    return {
      url: url instanceof Request ? url.url : url instanceof URL ? url.href : (url ?? ''),
      authorization: new Headers(init?.headers).get('authorization'),
    };
  };

  it('writes contexts, lists them, and calls the registry and token of the one named', async () => {
    expect(
      (await run('config', 'set-context', 'prod', '--registry-url', 'https://prod.test/', '--token', 'p-tok'))
        .code,
    ).toBe(0);
    expect((await run('config', 'set-context', 'dev', '--registry-url', 'http://dev.test:8081')).code).toBe(
      0,
    );
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await run('config', 'use-context', 'dev')).stdout).toBe('current context: dev\n');
    const list = await run('config', 'get-contexts');
    expect(list.stdout).toMatch(
      /^CURRENT +NAME +REGISTRY +TOKEN\n +prod +https:\/\/prod\.test +set\n\* +dev +http:\/\/dev\.test:8081 +-\n$/,
    );
    expect((await run('config', 'current-context')).stdout).toBe('dev\n');

    fetchMock.mockResolvedValueOnce(answer(200, []));
    expect((await run('--context', 'prod', 'endpoint', 'list')).code).toBe(0);
    expect(calledWith()).toEqual({ url: 'https://prod.test/v1/endpoints', authorization: 'Bearer p-tok' });

    // Without --context the environment wins; the current context fills what it leaves unset.
    vi.stubEnv('MODELGATE_REGISTRY', '');
    vi.stubEnv('MODELGATE_TOKEN', '');
    fetchMock.mockResolvedValueOnce(answer(200, []));
    await run('endpoint', 'list');
    expect(calledWith()).toEqual({ url: 'http://dev.test:8081/v1/endpoints', authorization: null });
  });

  it('refuses an unknown context, a bad file and a context option that would do nothing, before any call', async () => {
    const none = await run('--context', 'prod', 'endpoint', 'list');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--context prod: ${file} has no contexts`);
    await run('config', 'set-context', 'dev', '--registry-url', 'http://dev.test:8081');
    expect((await run('config', 'use-context', 'prod')).stderr).toContain('use-context prod: ');
    expect((await run('config', 'set-context', 'new')).stderr).toContain(
      'a new context needs --registry-url URL',
    );
    expect((await run('config', 'set-context', 'x', '--registry-url', 'ftp://x')).stderr).toContain(
      '--registry-url: must be an http',
    );
    expect((await run('--context', 'dev', 'config', 'get-contexts')).stderr).toContain(
      '--context: config commands read and write the contexts file',
    );
    await writeFile(file, 'contexts:\n  dev:\n    url: http://x\n');
    const bad = await run('endpoint', 'list');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('contexts.dev.url: is not a known field');
    expect(fetchMock).not.toHaveBeenCalled();
    expect(await readFile(file, 'utf8')).toContain('url: http://x');
  });
});
