import { describe, expect, it, vi } from 'vitest';
import { sampleEndpointView, sampleModelView } from '@modelgate/testing';
import { answer, run, stubRegistry } from '../test/support/in-process-cli.js';

describe('modelgate command line', () => {
  const fetchMock = stubRegistry();

  it('exits 2 with commander’s message for an unknown command or a missing required option', async () => {
    const unknown = await run('modle', 'list');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("error: unknown command 'modle'");
    const missing = await run('model', 'add', 'tiny', '--path', '/tmp');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--task <task>' not specified");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 naming the bad route and touches no API for a malformed route spec', async () => {
    const result = await run('route', 'set', 'sentiment', 'sst2:1=90', 'sst2:2=ten');
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toContain("error: route 'sst2:2=ten': weight 'ten' must be an integer percentage");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 for an option value of the wrong kind', async () => {
    const result = await run('model', 'add', 'tiny', '--path', '.', '--task', 'raw', '--max-batch-size', '0');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      "option '--max-batch-size <n>' argument '0' is invalid. '0' must be a positive integer",
    );
  });

  it('exits 2 when --path and --uri are both given', async () => {
    const result = await run(
      'model',
      'add',
      'tiny',
      '--path',
      '.',
      '--uri',
      'file:///m.onnx',
      '--task',
      'raw',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--path <dir>' cannot be used with option '--uri <uri>'");
  });

  it('exits 2 when tokenizer files are named beside an uploaded directory', async () => {
    for (const flag of ['--tokenizer-uri', '--tokenizer-sha256']) {
      const result = await run('model', 'add', 'tiny', '--path', '.', flag, 'x', '--task', 'raw');
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`option '--path <dir>' cannot be used with option '${flag} <`);
    }
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 when --wait-timeout-s is given with --no-wait', async () => {
    const result = await run(
      'model',
      'add',
      'tiny',
      '--path',
      '.',
      '--task',
      'raw',
      '--no-wait',
      '--wait-timeout-s',
      '5',
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("option '--wait-timeout-s <s>' cannot be used with option '--no-wait'");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 for perf with --registry, which it would not use, or a bad endpoint name', async () => {
    const registry = await run('--registry', 'http://registry.test:1', 'perf', 'sentiment');
    expect(registry.code).toBe(2);
    expect(registry.stderr).toContain('perf drives a gateway (--gateway), not the registry: drop --registry');
    const name = await run('perf', 'Not_A_Name');
    expect(name.code).toBe(2);
    expect(name.stderr).toContain("'Not_A_Name' must be 1-63 lowercase letters");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 for -o wide on a command whose output has no wider form, before any call', async () => {
    for (const args of [
      ['-o', 'wide', 'token', 'list'],
      ['model', 'show', 'sst2:1', '--output', 'wide'],
      ['-o', 'wide', 'endpoint', 'remove', 'sentiment'],
    ]) {
      const result = await run(...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        '-o wide adds columns to the tables of model list, endpoint list and status',
      );
    }
    const path = await run('-o', 'wide', 'rollout', 'status', 'sentiment');
    expect(path.stderr).toContain("'rollout status' has no wider form: use -o table, json or yaml");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 naming a bad environment variable but not its value', async () => {
    vi.stubEnv('MODELGATE_REGISTRY', 'registry-without-scheme');
    const result = await run('model', 'list');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('MODELGATE_REGISTRY: must be an http:// or https:// URL');
    expect(result.stderr).not.toContain('registry-without-scheme');
  });

  it('prints help on stdout and exits 0 for --help', async () => {
    const result = await run('route', 'set', '--help');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Usage: modelgate route set [options] <endpoint> <routes...>');
  });

  it('prints one resource name per line with -o name: name:version for a model version', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(200, [sampleEndpointView({ name: 'sentiment' }), sampleEndpointView({ name: 'embed' })]),
    );
    const list = await run('endpoint', 'list', '-o', 'name');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe('sentiment\nembed\n');
    fetchMock.mockResolvedValueOnce(answer(200, sampleModelView({ name: 'sst2', version: '3' })));
    const model = await run('-o', 'name', 'model', 'show', 'sst2:3');
    expect(model.stdout).toBe('sst2:3\n');
    fetchMock.mockResolvedValueOnce(answer(200, []));
    expect((await run('endpoint', 'list', '-o', 'name')).stdout).toBe('');
  });

  it("prints what -o jsonpath=TEMPLATE selects of the answer, kubectl's way", async () => {
    const view = sampleEndpointView({
      name: 'sentiment',
      routes: [
        { model: 'sst2:1', weight: 90, role: 'primary' },
        { model: 'sst2:2', weight: 10, role: 'canary' },
      ],
    });
    fetchMock.mockResolvedValueOnce(answer(200, view));
    const one = await run('endpoint', 'show', 'sentiment', '-o', 'jsonpath={.routes[*].model}');
    expect(one.code, one.stderr).toBe(0);
    expect(one.stdout).toBe('sst2:1 sst2:2');
    fetchMock.mockResolvedValueOnce(answer(200, [view, sampleEndpointView({ name: 'embed' })]));
    const list = await run('-o=jsonpath={range [*]}{.name}{"\\n"}{end}', 'endpoint', 'list');
    expect(list.stdout).toBe('sentiment\nembed\n');
  });

  it('exits 2 for a jsonpath it cannot read, or none, before any call', async () => {
    const unclosed = await run('endpoint', 'list', '-o', 'jsonpath={.name');
    expect(unclosed.code).toBe(2);
    expect(unclosed.stderr).toContain("-o jsonpath={.name: '{' at 1 is never closed");
    const bare = await run('endpoint', 'list', '-o', 'jsonpath');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('-o jsonpath needs a template');
    const other = await run('endpoint', 'list', '-o', 'xml');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain("'xml' is not an output format");
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('prints list tables without their header line with --no-headers, and nothing for an empty list', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(200, [
        sampleEndpointView({
          name: 'sentiment',
          routes: [{ model: 'sst2:1', weight: 100, role: 'primary' }],
        }),
      ]),
    );
    const list = await run('endpoint', 'list', '--no-headers');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/^sentiment +text-classification +sst2:1 100% primary/);
    expect(list.stdout).not.toContain('ENDPOINT');
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(1);
    fetchMock.mockResolvedValueOnce(answer(200, []));
    expect((await run('--no-headers', 'model', 'list')).stdout).toBe('');
  });

  it('exits 2 for --no-headers where no list table is printed, before any call', async () => {
    const status = await run('--no-headers', 'status');
    expect(status.code).toBe(2);
    expect(status.stderr).toContain(
      "--no-headers drops the header line of the tables of model list, endpoint list and token list; 'status' prints none",
    );
    const json = await run('endpoint', 'list', '--no-headers', '-o', 'json');
    expect(json.code).toBe(2);
    expect(json.stderr).toContain('--no-headers applies to tables; -o json prints none');
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('exits 2 for -o name on a command that answers no named resources, before any call', async () => {
    for (const args of [
      ['-o', 'name', 'status'],
      ['-o', 'name', 'token', 'create', 'ci', '--role', 'viewer'],
      ['endpoint', 'remove', 'sentiment', '-o', 'name'],
    ]) {
      const result = await run(...args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain('-o name lists the resources of model add, list and show');
    }
    expect(fetchMock).not.toHaveBeenCalled();
  });

  it('sends the token and route specs to the registry and prints the raw API JSON with --json', async () => {
    const endpoint = sampleEndpointView({ routes: [{ model: 'sst2:1', weight: 100, role: 'primary' }] });
    fetchMock.mockResolvedValueOnce(answer(200, endpoint));
    const result = await run('route', 'set', 'sentiment', 'sst2:1=100', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual(endpoint);
    const [url, init] = fetchMock.mock.calls[0] ?? [];
    expect(url).toBe('http://registry.test:8081/v1/endpoints/sentiment/routes');
    expect(init?.method).toBe('PUT');
    expect(init?.headers).toMatchObject({ authorization: 'Bearer secret-token' });
    expect(JSON.parse(init?.body as string)).toEqual({ routes: [{ model: 'sst2:1', weight: 100 }] });
  });

  it('prefers --registry over MODELGATE_REGISTRY', async () => {
    fetchMock.mockResolvedValueOnce(answer(200, []));
    await run('--registry', 'http://other.test:9000/', 'model', 'list');
    expect(fetchMock.mock.calls[0]?.[0]).toBe('http://other.test:9000/v1/models');
  });

  it('exits 1 with the API’s message, code and request id, and no stack, when the registry refuses', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(409, {
        error: {
          code: 'CONFLICT',
          message: 'routes[1].model: model sst2:2 is PREPARING; only READY models can be routed',
          request_id: 'req-1',
          field: 'routes[1].model',
        },
      }),
    );
    const result = await run('route', 'set', 'sentiment', 'sst2:1=90', 'sst2:2=10');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      'error: routes[1].model: model sst2:2 is PREPARING; only READY models can be routed\n' +
        '  (CONFLICT, HTTP 409, request req-1)\n',
    );
  });

  it('says to set MODELGATE_TOKEN when a call without a token is refused with 401', async () => {
    vi.stubEnv('MODELGATE_TOKEN', '');
    fetchMock.mockResolvedValueOnce(
      answer(401, { error: { code: 'UNAUTHENTICATED', message: 'missing token' } }),
    );
    const result = await run('model', 'list');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('error: missing token (set MODELGATE_TOKEN)');
    expect(fetchMock.mock.calls[0]?.[1]?.headers).not.toHaveProperty('authorization');
  });

  it('exits 1 naming the registry it could not reach', async () => {
    fetchMock.mockRejectedValueOnce(new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }));
    const result = await run('status');
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: cannot reach the registry at http://registry.test:8081: ECONNREFUSED (set --registry or MODELGATE_REGISTRY)\n',
    );
  });

  it('prints the bare token secret on stdout and the advice on stderr', async () => {
    fetchMock.mockResolvedValueOnce(
      answer(201, {
        name: 'ci',
        role: 'viewer',
        createdAt: '2025-01-01T00:00:00.000Z',
        revokedAt: null,
        token: 'mg_abc',
      }),
    );
    const result = await run('token', 'create', 'ci', '--role', 'viewer');
    expect(result).toMatchObject({ code: 0, stdout: 'mg_abc\n' });
    expect(result.stderr).toContain("created viewer token 'ci'");
  });
});
