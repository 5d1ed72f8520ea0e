import { type EndpointView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun } from './support/cli-process.js';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

describe('modelgate endpoint add|set --preprocessing/--postprocessing KEY=VALUE against a running registry', () => {
  let cli: CliRegistry;

  const modelgate = (...args: string[]) => cli.modelgate(...args);
  const stored = async (name: string): Promise<EndpointView> =>
    (await cli.registry.admin.get<EndpointView>(`/v1/endpoints/${name}`)).body;
  const ok = (run: CliRun): CliRun => {
    expect(run.code, run.stderr).toBe(0);
    return run;
  };

  beforeAll(async () => {
    cli = await startCliRegistry();
    const fixture = await ensureFixture('tiny-bert-embedder');
    ok(await modelgate('model', 'add', 'embedder', '--path', fixture, '--task', 'feature-extraction'));
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('creates an endpoint with its answer options and input limits', async () => {
    ok(
      await modelgate(
        'endpoint',
        'add',
        'embed',
        '--model',
        'embedder:1',
        '--postprocessing',
        'pooling=cls',
        '--preprocessing',
        'maxTokens=32',
        '--preprocessing',
        'truncation=true',
      ),
    );
    const endpoint = await stored('embed');
    expect(endpoint.postprocessing).toMatchObject({ pooling: 'cls' });
    expect(endpoint.preprocessing).toMatchObject({ maxTokens: 32, truncation: true });
  });

  it('changes only the keys given, and puts one back to its default with null', async () => {
    const run = ok(
      await modelgate(
        'endpoint',
        'set',
        'embed',
        '--postprocessing',
        'normalize=true',
        '--timeout-ms',
        '1500',
        '--sticky-header',
        'x-user',
      ),
    );
    expect(run.stdout).toMatch(/^postprocessing: +pooling cls, normalize true$/m);
    let endpoint = await stored('embed');
    expect(endpoint.postprocessing).toMatchObject({ pooling: 'cls', normalize: true });
    expect(endpoint.preprocessing.maxTokens).toBe(32);
    expect(endpoint.timeoutMs).toBe(1500);
    expect(endpoint.stickyHeader).toBe('x-user');

    ok(
      await modelgate(
        'endpoint',
        'set',
        'embed',
        '--postprocessing',
        'pooling=null',
        '--preprocessing',
        'maxTokens=none',
        '--timeout-ms',
        'none',
        '--sticky-header',
        'none',
        '-o',
        'json',
      ),
    );
    endpoint = await stored('embed');
    expect(endpoint.postprocessing.pooling).toBeUndefined();
    expect(endpoint.postprocessing.normalize).toBe(true);
    expect(endpoint.preprocessing.maxTokens ?? null).toBeNull(); // cleared: the model maximum
    expect(endpoint.timeoutMs).toBeNull();
    expect(endpoint.stickyHeader).toBeNull();
  });

  it('refuses a misspelt key or a bad value before sending anything, with exit code 2', async () => {
    const before = await stored('embed');
    for (const args of [
      ['--postprocessing', 'normalise=false'],
      ['--postprocessing', 'pooling=max'],
      ['--preprocessing', 'maxTokens'],
      [],
    ]) {
      const run = await modelgate('endpoint', 'set', 'embed', ...args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toMatch(/^error: /m);
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
    const misspelt = await modelgate('endpoint', 'set', 'embed', '--postprocessing', 'normalise=false');
    expect(misspelt.stderr).toContain(
      "unknown key 'normalise'; it takes topK, pooling, normalize, multiLabel",
    );
    expect(await stored('embed')).toEqual(before);
  });

  it("passes the registry's refusal through: an option of another task", async () => {
    const run = await modelgate('endpoint', 'set', 'embed', '--postprocessing', 'topK=2');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/topK/);
    expect(run.stderr).toContain('HTTP 400');
    expect((await stored('embed')).postprocessing.topK).toBeUndefined();
  });
});
