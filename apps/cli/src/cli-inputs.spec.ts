import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { answer, run, stubRegistry } from '../test/support/in-process-cli.js';

describe('modelgate command line: settings and inputs it cannot act on', () => {
  const fetchMock = stubRegistry();

  it('takes --registry over a malformed MODELGATE_REGISTRY, which it then neither reads nor checks', async () => {
    vi.stubEnv('MODELGATE_REGISTRY', 'registry-without-scheme');
    fetchMock.mockResolvedValueOnce(answer(200, []));
    const result = await run('--registry', 'http://other.test:9000', 'model', 'list');
    expect(result.code).toBe(0);
    expect(fetchMock.mock.calls[0]?.[0]).toBe('http://other.test:9000/v1/models');
  });

  it('refuses a --registry or --gateway URL that cannot be parsed, before calling anything', async () => {
    for (const url of ['http://a:99999', 'http://[::1']) {
      const registry = await run('--registry', url, 'model', 'list');
      expect(registry.code).toBe(2);
      expect(registry.stderr).toContain('is not a valid URL (check the host and port)');
      const perf = await run('perf', 'sentiment', '--gateway', url, '--duration', '100ms');
      expect(perf.code).toBe(2);
      expect(perf.stderr).toContain('is not a valid URL (check the host and port)');
    }
    const scheme = await run('perf', 'sentiment', '--gateway', 'ftp://x', '--duration', '100ms');
    expect(scheme.code).toBe(2);
    expect(scheme.stderr).toContain('must be an http:// or https:// URL, e.g. http://127.0.0.1:8080');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('perf exits 1 when no request of a level succeeded, without reading the registry settings', async () => {
    vi.stubEnv('MODELGATE_REGISTRY', 'registry-without-scheme');
    fetchMock.mockRejectedValue(new TypeError('fetch failed'));
    const down = await run('perf', 'sentiment', '--concurrency-range', '1:2', '--duration', '150ms');
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /no request to http:\/\/127\.0\.0\.1:8080\/serve\/sentiment succeeded at concurrency 1 \(no connection ×\d+\)/,
    );
    // A refused connection waits before the next try: a handful of calls, not a busy loop.
    expect(fetchMock.mock.calls.length).toBeLessThan(20);
    expect(down.stdout).toContain('Concurrency: 1,'); // the level it ran is still shown
    expect(down.stdout).not.toContain('Concurrency: 2,');

    fetchMock.mockReset();
    fetchMock.mockImplementation(() => Promise.resolve(answer(404, { error: { code: 'NOT_FOUND' } })));
    const missing = await run('perf', 'nope', '--duration', '50ms');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/succeeded at concurrency 1 \(HTTP 404 ×\d+\)/);
  });

  it('perf sends the bodies of --input-data in turn, and refuses a file it cannot use before any call', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'modelgate-perf-'));
    try {
      const file = join(dir, 'bodies.jsonl');
      await writeFile(
        file,
        '{"question": "Who?", "context": "Ada wrote it."}\n{"question": "What?", "context": "A note."}\n',
      );
      fetchMock.mockImplementation(() => Promise.resolve(answer(200, { predictions: [] })));
      const result = await run('perf', 'qa', '--duration', '100ms', '--input-data', file);
      expect(result.code, result.stderr).toBe(0);
      const sent = fetchMock.mock.calls.map(([, init]) => init?.body);
      expect(sent.slice(0, 2)).toEqual([
        '{"question":"Who?","context":"Ada wrote it."}',
        '{"question":"What?","context":"A note."}',
      ]);
      expect(new Set(sent).size).toBe(2);

      fetchMock.mockReset();
      await writeFile(file, '["not a body"]');
      const bad = await run('perf', 'qa', '--duration', '100ms', '--input-data', file);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('entry 1 is not a JSON object');
      const missing = await run('perf', 'qa', '--duration', '100ms', '--input-data', join(dir, 'nope.json'));
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain('cannot read it (ENOENT)');
      expect(fetchMock).not.toHaveBeenCalled();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('runs `modelgate version` for --version anywhere among the global options, and refuses -V with a format', async () => {
    const version = { component: 'registry', version: '9.9.9', api: 'v1' };
    fetchMock.mockImplementation(() => Promise.resolve(answer(200, version)));
    for (const argv of [
      ['-o', 'json', '--version'],
      ['--registry', 'http://other.test:9000', '--version'],
    ]) {
      const result = await run(...argv);
      expect(result.code).toBe(0);
      expect(result.stdout).toContain('9.9.9');
    }
    expect(JSON.parse((await run('-o', 'json', '--version')).stdout)).toMatchObject({
      registry: { version: '9.9.9' },
    });
    const bare = await run('-V', '-o', 'json');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('-V prints the bare CLI version');
  });

  it('checks endpoint, token and model names on every command, before calling the registry', async () => {
    for (const argv of [
      ['route', 'set', 'Sent', 'sst2:1=100'],
      ['endpoint', 'show', 'Sent'],
      ['endpoint', 'remove', 'Sent'],
      ['token', 'revoke', 'CI'],
      ['model', 'list', '--name', 'Bad_Name'],
    ]) {
      const result = await run(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr).toContain('must be 1-63 lowercase letters, digits or dashes');
    }
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('model add refuses inert batching options and settings the registry would refuse, before uploading', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'mg-cli-add-'));
    try {
      await writeFile(join(dir, 'model.onnx'), new Uint8Array(64));
      const add = (...argv: string[]) => run('model', 'add', 'x', '--path', dir, ...argv);
      const inert = await add('--task', 'text-generation', '--max-queue-delay-us', '2000');
      expect(inert.code).toBe(2);
      expect(inert.stderr).toContain('--max-queue-delay-us has no meaning for a text-generation model');
      const version = await add('--task', 'raw', '--version', '1000000000');
      expect(version.code).toBe(2);
      expect(version.stderr).toContain('the registry would refuse these settings: version: ');
      expect(version.stderr).not.toContain('uploading');
      expect(fetchMock).not.toHaveBeenCalled();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 saying the URL may not be the registry when a 2xx answer is not the route’s', async () => {
    fetchMock.mockResolvedValueOnce(
      new Response('<html>proxy</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
    );
    const result = await run('model', 'list');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'the registry at http://registry.test:8081 answered GET /v1/models with HTTP 200 and a body that is not JSON (text/html)',
    );
    expect(result.stderr).toContain("is it the registry's admin API?");
  });
});
