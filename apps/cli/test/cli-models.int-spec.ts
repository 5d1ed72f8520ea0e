import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type EndpointView, type ModelView, parseConfigSnapshot } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { waitFor } from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { type CliRun } from './support/cli-process.js';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

/** How long the test registry holds each model in PREPARING, so the CLI's progress shows it. */
const PREPARE_DELAY_MS = 1500;

describe('modelgate CLI: models, endpoints and routes against a running registry', () => {
  let cli: CliRegistry;
  let fixtureDir: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);
  const json = <T>(run: CliRun): T => {
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as T;
  };
  const snapshot = async (): Promise<{ revision: number }> =>
    (await cli.registry.admin.get<{ revision: number }>('/v1/config/snapshot')).body;

  beforeAll(async () => {
    cli = await startCliRegistry({ REGISTRY_TEST_PREPARE_DELAY_MS: String(PREPARE_DELAY_MS) });
    fixtureDir = await ensureFixture('tiny-bert-sst2');
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('uploads a model directory, shows PENDING → PREPARING → READY on stderr and exits 0', async () => {
    const run = await modelgate(
      'model',
      'add',
      'tiny',
      '--path',
      fixtureDir,
      '--task',
      'text-classification',
      '--max-batch-size',
      '4',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('uploading model.onnx, tokenizer.json');
    const transitions = [...run.stderr.matchAll(/^tiny:1 {2}(\w+) +[\d.]+s/gm)].map((match) => match[1]);
    expect(transitions).toEqual(['PENDING', 'PREPARING', 'READY']);
    expect(run.stderr).not.toContain('\r'); // no spinner when stderr is not a terminal
    // Byte progress as lines (not a terminal): ending with every byte of the files sent.
    const progress = [...run.stderr.matchAll(/^uploaded (\d+)% \(/gm)].map((match) => Number(match[1]));
    expect(progress.at(-1)).toBe(100);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(run.stderr).toContain(
      "warning: no live worker in group 'default': model tiny:1 is not served until one starts",
    );
    expect(run.stdout).toMatch(/^model: +tiny:1$/m);
    expect(run.stdout).toMatch(/^status: +READY$/m);
    expect(run.stdout).toContain('max batch 4');
    const stored = (await cli.registry.admin.get<ModelView>('/v1/models/tiny/1')).body;
    expect(stored.status).toBe('READY');
    expect(stored.tokenizer).not.toBeNull();
  });

  it('creates an endpoint on the READY model, taking the task from the model', async () => {
    const run = await modelgate(
      'endpoint',
      'add',
      'sentiment',
      '--model',
      'tiny:1',
      '--max-tokens',
      '64',
      '--timeout-ms',
      '2000',
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^task: +text-classification$/m);
    expect(run.stdout).toMatch(/^tiny:1 +100% +primary$/m);
    // The registry sees the fleet (Redis heartbeats) and no worker of group default is alive.
    expect(run.stderr).toContain(
      "warning: no live worker in group 'default': model tiny:1 is not served until one starts",
    );
    const endpoint = (await cli.registry.admin.get<EndpointView>('/v1/endpoints/sentiment')).body;
    expect(endpoint.preprocessing.maxTokens).toBe(64);
    expect(endpoint.timeoutMs).toBe(2000);
  });

  it('refuses routes whose weights do not sum to 100 with the API’s message', async () => {
    const run = await modelgate('route', 'set', 'sentiment', 'tiny:1=90');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('weights of primary and canary routes must sum to 100, got 90 (tiny:1=90)');
    expect(run.stderr).toContain('INVALID_ARGUMENT, HTTP 400');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  });

  it('refuses a route to a model that is not READY yet, then accepts it once READY', async () => {
    const added = json<ModelView>(
      await modelgate(
        'model',
        'add',
        'tiny',
        '--path',
        fixtureDir,
        '--task',
        'text-classification',
        '--no-wait',
        '--json',
      ),
    );
    expect(added).toMatchObject({ id: 'tiny:2', status: 'PENDING' });

    const early = await modelgate('route', 'set', 'sentiment', 'tiny:1=90', 'tiny:2=10');
    expect(early.code).toBe(1);
    expect(early.stderr).toMatch(/model tiny:2 is (PENDING|PREPARING).*only READY models can be routed/);
    expect(early.stderr).toContain('CONFLICT, HTTP 409');

    await waitFor(
      async () => json<ModelView>(await modelgate('model', 'show', 'tiny:2', '--json')).status === 'READY',
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
    const before = await snapshot();
    const routed = await modelgate('route', 'set', 'sentiment', 'tiny:1=90', 'tiny:2=10');
    expect(routed.code, routed.stderr).toBe(0);
    expect(routed.stdout).toMatch(/^tiny:1 +90% +primary$/m);
    expect(routed.stdout).toMatch(/^tiny:2 +10% +canary$/m);

    // The snapshot the fleet applies validates against the contracts and carries the new revision.
    const response = await cli.registry.admin.get('/v1/config/snapshot');
    const applied = parseConfigSnapshot(response.body);
    expect(applied.revision).toBeGreaterThan(before.revision);
    expect(response.headers.get('etag')).toBe(`"${applied.revision}"`);
    expect(applied.endpoints.find((endpoint) => endpoint.name === 'sentiment')?.routes).toEqual([
      { model: 'tiny:1', weight: 90, role: 'primary' },
      { model: 'tiny:2', weight: 10, role: 'canary' },
    ]);
    expect(applied.models.map((model) => model.id)).toEqual(['tiny:1', 'tiny:2']);
  });

  it('prints JSON that parses for list and show, and nothing else on stdout', async () => {
    const models = json<ModelView[]>(await modelgate('model', 'list', '--json'));
    expect(models.map((model) => `${model.id} ${model.status}`)).toEqual(['tiny:1 READY', 'tiny:2 READY']);
    expect(
      json<ModelView>(await modelgate('--json', 'model', 'show', 'tiny:1')).inputs.length,
    ).toBeGreaterThan(0);
    expect(json<EndpointView[]>(await modelgate('endpoint', 'list', '--json')).map((e) => e.name)).toEqual([
      'sentiment',
    ]);
    expect(
      json<EndpointView>(await modelgate('endpoint', 'show', 'sentiment', '--json')).routes,
    ).toHaveLength(2);
  });

  it('prints YAML that parses to the API’s answer, and wide tables with more columns', async () => {
    const yaml = await modelgate('model', 'list', '-o', 'yaml');
    expect(yaml.code, yaml.stderr).toBe(0);
    expect(parseYaml(yaml.stdout)).toEqual(json<ModelView[]>(await modelgate('model', 'list', '-o', 'json')));
    const wide = await modelgate('model', 'list', '-o', 'wide');
    expect(wide.stdout.split('\n')[0]).toMatch(
      /^MODEL +TASK +STATUS +WORKER GROUP +PROVIDERS +INSTANCES +MAX BATCH +SHA256 +REASON +CREATED$/,
    );
    const endpoints = await modelgate('endpoint', 'list', '--output', 'wide');
    expect(endpoints.stdout).toMatch(/^sentiment +.* +64 +x-modelgate-route-key +\S+$/m);
    const clash = await modelgate('model', 'list', '--json', '-o', 'yaml');
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('--json and -o yaml disagree: give one of them');
    const unknown = await modelgate('model', 'list', '-o', 'xml');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      "'xml' is not an output format: table, wide, json, yaml, name or jsonpath=TEMPLATE",
    );
  });

  it('prints human tables by default', async () => {
    const list = await modelgate('model', 'list');
    expect(list.code).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^MODEL +TASK +STATUS +WORKER GROUP +PROVIDERS +CREATED$/);
    expect(lines[1]).toMatch(/^tiny:1 +text-classification +READY +default +cpu +\S+$/);
    const endpoints = await modelgate('endpoint', 'list');
    expect(endpoints.stdout).toMatch(
      /^sentiment +text-classification +tiny:1 90% primary, tiny:2 10% canary +2000ms$/m,
    );
  });

  it('shows, sets and resets a model’s version policy, refusing malformed ones before calling', async () => {
    const shown = await modelgate('model', 'policy', 'tiny');
    expect(shown).toMatchObject({
      code: 0,
      stdout: 'model tiny: version policy latest 1 (default); loaded versions: 1, 2\n',
    });
    const before = await snapshot();
    const set = await modelgate('model', 'policy', 'tiny', 'specific:1', '--json');
    expect(json<{ policy: unknown }>(set).policy).toEqual({ kind: 'specific', versions: [1] });
    expect((await snapshot()).revision).toBe(before.revision + 1);
    const missing = await modelgate('model', 'policy', 'tiny', 'specific:1,7');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('model tiny has no version 7 (it has 1, 2)');
    const malformed = await modelgate('model', 'policy', 'tiny', 'newest');
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toContain(
      "version policy 'newest': expected one of all, latest[:N], specific:V1,V2,... or default",
    );
    const reset = await modelgate('model', 'policy', 'tiny', 'default');
    expect(reset.stdout).toBe('model tiny: version policy latest 1 (default); loaded versions: 1, 2\n');
  });

  it('refuses to remove a routed model with the API’s message, and removes an endpoint', async () => {
    const routed = await modelgate('model', 'remove', 'tiny:2');
    expect(routed.code).toBe(1);
    expect(routed.stderr).toContain('CONFLICT, HTTP 409');
    const removed = await modelgate('endpoint', 'remove', 'sentiment');
    expect(removed).toMatchObject({ code: 0, stdout: 'removed endpoint sentiment\n' });
    const quiet = await modelgate('model', 'remove', 'tiny:2', '--json');
    expect(quiet).toMatchObject({ code: 0, stdout: '' });
    const gone = await modelgate('model', 'show', 'tiny:2');
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('NOT_FOUND, HTTP 404');
  });

  it('exits 1 with the preparation failure reason when the model ends FAILED', async () => {
    const broken = join(cli.isolation.dir, 'broken-export');
    await mkdir(broken, { recursive: true });
    await writeFile(join(broken, 'model.onnx'), 'this is not an onnx graph');
    for (const file of [
      'tokenizer.json',
      'tokenizer_config.json',
      'config.json',
      'special_tokens_map.json',
    ]) {
      await copyFile(join(fixtureDir, file), join(broken, file));
    }
    const run = await modelgate('model', 'add', 'broken', '--path', broken, '--task', 'text-classification');
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^broken:1 {2}FAILED/m);
    expect(run.stderr).toMatch(/^error: model broken:1 FAILED: .+/m);
  });

  it('exits 2 for a --path without a model file', async () => {
    const empty = join(cli.isolation.dir, 'empty-export');
    await mkdir(empty, { recursive: true });
    const run = await modelgate('model', 'add', 'nothing', '--path', empty, '--task', 'text-classification');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no model.onnx in it or in its onnx/ folder');
  });

  it('sends preferred batch sizes, and refuses a queue delay that could never make a batch wait', async () => {
    const flags = ['--path', fixtureDir, '--task', 'text-classification', '--no-wait'];
    const refused = await modelgate('model', 'add', 'delayed', ...flags, '--max-queue-delay-us', '500');
    // Refused before the upload: the CLI knows the option was typed (the registry cannot tell its default).
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('so it needs --preferred-batch-sizes and --instances 2 or more');
    expect(refused.stderr).not.toContain('uploading');
    const waiting = ['--preferred-batch-sizes', '2,4', '--max-queue-delay-us', '500', '--instances', '2'];
    const run = await modelgate('model', 'add', 'delayed', ...flags, ...waiting);
    expect(run.code, run.stderr).toBe(0);
    const shown = json<ModelView>(await modelgate('model', 'show', 'delayed:1', '--json'));
    expect(shown.batching).toMatchObject({ preferredBatchSizes: [2, 4], maxQueueDelayMicros: 500 });
    expect(shown.runtime.instances).toBe(2);
    const malformed = await modelgate('model', 'add', 'delayed', ...flags, '--preferred-batch-sizes', '4,x');
    expect(malformed.code).not.toBe(0);
    expect(malformed.stderr).toContain("'x' must be");
  });
});
