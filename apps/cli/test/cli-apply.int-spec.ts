// `modelgate apply -f` and `modelgate get endpoint` against a running registry (real Postgres):
// a file creates endpoints, applying it again changes nothing, --dry-run prints the diff and
// changes nothing, an edit changes only what differs, and what `get` prints applies back as-is.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type EndpointView } from '@modelgate/contracts';
import { ensureFixture } from '@modelgate/fixtures';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliRun } from './support/cli-process.js';
import { type CliRegistry, startCliRegistry } from './support/cli-registry.js';

const FILE = `kind: Endpoint
name: sentiment
task: text-classification
routes:
  - model: bert:1
    weight: 90
  - model: bert:2
    weight: 10
preprocessing:
  maxTokens: 64
postprocessing:
  topK: 2
timeoutMs: 2000
---
kind: Endpoint
name: embed
task: feature-extraction
routes:
  - model: embedder:1
    weight: 100
postprocessing:
  pooling: cls
  normalize: true
`;

describe('modelgate apply -f and get endpoint against a running registry', () => {
  let cli: CliRegistry;
  let dir: string;

  const modelgate = (...args: string[]) => cli.modelgate(...args);
  const stored = async (name: string): Promise<EndpointView> =>
    (await cli.registry.admin.get<EndpointView>(`/v1/endpoints/${name}`)).body;
  const ok = (run: CliRun): CliRun => {
    expect(run.code, run.stderr).toBe(0);
    return run;
  };
  const file = async (name: string, text: string): Promise<string> => {
    const path = join(dir, name);
    await writeFile(path, text);
    return path;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'modelgate-apply-'));
    cli = await startCliRegistry();
    const bert = await ensureFixture('tiny-bert-sst2');
    ok(await modelgate('model', 'add', 'bert', '--path', bert, '--task', 'text-classification'));
    ok(await modelgate('model', 'add', 'bert', '--path', bert, '--task', 'text-classification'));
    const embedder = await ensureFixture('tiny-bert-embedder');
    ok(await modelgate('model', 'add', 'embedder', '--path', embedder, '--task', 'feature-extraction'));
  });

  afterAll(async () => {
    await cli?.stop();
  });

  it('creates the endpoints of a file, then finds nothing to change in it', async () => {
    const path = await file('endpoints.yaml', FILE);
    const dry = ok(await modelgate('apply', '-f', path, '--dry-run'));
    expect(dry.stdout).toContain('endpoint/sentiment would be created');
    expect((await cli.registry.admin.get(`/v1/endpoints/sentiment`)).status).toBe(404);

    const first = ok(await modelgate('apply', '-f', path));
    expect(first.stdout).toBe('endpoint/sentiment created\nendpoint/embed created\n');
    const sentiment = await stored('sentiment');
    expect(sentiment.routes).toEqual([
      { model: 'bert:1', weight: 90, role: 'primary' },
      { model: 'bert:2', weight: 10, role: 'canary' },
    ]);
    expect(sentiment).toMatchObject({
      preprocessing: { maxTokens: 64 },
      postprocessing: { topK: 2 },
      timeoutMs: 2000,
    });
    expect((await stored('embed')).postprocessing).toEqual({ pooling: 'cls', normalize: true });

    const again = ok(await modelgate('apply', '-f', path));
    expect(again.stdout).toBe('endpoint/sentiment unchanged\nendpoint/embed unchanged\n');
    expect((await stored('sentiment')).updatedAt).toBe(sentiment.updatedAt);
  });

  it('prints the diff of an edit with --dry-run, then changes only what differs', async () => {
    const edited = await file(
      'edited.yaml',
      FILE.replace('weight: 90', 'weight: 50')
        .replace('weight: 10', 'weight: 50')
        .replace('maxTokens: 64', 'maxTokens: 32'),
    );
    const dry = ok(await modelgate('apply', '-f', edited, '--dry-run'));
    expect(dry.stdout).toBe(
      [
        'endpoint/sentiment would be configured',
        '  preprocessing.maxTokens: 64 → 32',
        '  routes: bert:1 90% primary, bert:2 10% canary → bert:1 50%, bert:2 50%',
        'endpoint/embed unchanged',
        '',
      ].join('\n'),
    );
    expect((await stored('sentiment')).preprocessing.maxTokens).toBe(64);
    const applied = ok(await modelgate('apply', '-f', edited, '-o', 'json'));
    expect(JSON.parse(applied.stdout)).toEqual([
      expect.objectContaining({ kind: 'Endpoint', name: 'sentiment', action: 'update' }),
      { kind: 'Endpoint', name: 'embed', action: 'unchanged', changes: [] },
    ]);
    const sentiment = await stored('sentiment');
    expect(sentiment.preprocessing.maxTokens).toBe(32);
    expect(sentiment.routes.map((route) => route.weight)).toEqual([50, 50]);
    expect(sentiment.timeoutMs).toBe(2000);
  });

  it('writes with get a file apply reads back as no change, one endpoint or all of them', async () => {
    const one = ok(await modelgate('get', 'endpoint', 'sentiment', '-o', 'yaml'));
    expect(one.stdout).toMatch(/^kind: Endpoint\nname: sentiment\ntask: text-classification\n/);
    const path = await file('got.yaml', one.stdout);
    expect(ok(await modelgate('apply', '-f', path, '--dry-run')).stdout).toBe(
      'endpoint/sentiment unchanged\n',
    );

    const all = ok(await modelgate('get', 'endpoints'));
    expect(all.stdout.split('\n---\n')).toHaveLength(2);
    const allPath = await file('all.yaml', all.stdout);
    expect(ok(await modelgate('apply', '-f', allPath)).stdout).toBe(
      'endpoint/embed unchanged\nendpoint/sentiment unchanged\n',
    );
    const json = ok(await modelgate('get', 'endpoints', '-o', 'json'));
    const jsonPath = await file('all.json', json.stdout);
    expect(ok(await modelgate('apply', '-f', jsonPath, '-o', 'name')).stdout).toBe('embed\nsentiment\n');
  });

  it('writes a model version with get, which applies back as no change, and registers a version it lacks', async () => {
    const one = ok(await modelgate('get', 'model', 'bert:1'));
    expect(one.stdout).toMatch(/^kind: Model\nname: bert\nversion: "1"\ntask: text-classification\n/);
    const path = await file('bert-1.yaml', one.stdout);
    expect(ok(await modelgate('apply', '-f', path)).stdout).toBe('model/bert:1 unchanged\n');
    const all = ok(await modelgate('get', 'models', 'bert'));
    expect(ok(await modelgate('apply', '-f', await file('bert.yaml', all.stdout))).stdout).toBe(
      'model/bert:1 unchanged\nmodel/bert:2 unchanged\n',
    );

    // The same files with another batch size and no version: the next version, then an endpoint on it.
    // A maxBatchSize nobody gave is not written (the worker takes as many as the graph allows).
    expect(one.stdout).not.toContain('maxBatchSize');
    const next = one.stdout
      .replace(/^version: "1"\n/m, '')
      .replace(/^batching:\n/m, 'batching:\n  maxBatchSize: 4\n');
    const withEndpoint = `${next}---\nkind: Endpoint\nname: small-batches\ntask: text-classification\nroutes: [{model: "bert:3", weight: 100}]\n`;
    const plan = ok(await modelgate('apply', '-f', await file('next.yaml', withEndpoint), '--dry-run'));
    expect(plan.stdout).toContain('model/bert would be created\n  register the next version of bert\n');
    const applied = ok(await modelgate('apply', '-f', await file('next.yaml', withEndpoint)));
    expect(applied.stdout).toBe('model/bert:3 created\nendpoint/small-batches created\n');
    expect((await stored('small-batches')).routes[0]?.model).toBe('bert:3');
    expect(ok(await modelgate('apply', '-f', await file('next.yaml', withEndpoint))).stdout).toBe(
      'model/bert:3 unchanged\nendpoint/small-batches unchanged\n',
    );
    const changed = await modelgate(
      'apply',
      '-f',
      await file('changed.yaml', one.stdout.replace(/^batching:\n/m, 'batching:\n  maxBatchSize: 2\n')),
    );
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('bert:1 is registered with other files or settings');
  });

  it('starts the rollout a file asks for once, and refuses one to another version while it runs', async () => {
    const rollout = await file(
      'rollout.yaml',
      'kind: Rollout\nendpoint: small-batches\nto: bert:1\nsteps: [50, 100]\nintervalSeconds: 600\n',
    );
    const started = ok(await modelgate('apply', '-f', rollout));
    expect(started.stdout).toBe('rollout/small-batches created\n');
    const view = (
      await cli.registry.admin.get<{ to: string; state: string; steps: number[] }>(
        '/v1/endpoints/small-batches/rollout',
      )
    ).body;
    expect(view).toMatchObject({ to: 'bert:1', steps: [50, 100] });
    expect(['PENDING', 'RUNNING']).toContain(view.state);
    expect(ok(await modelgate('apply', '-f', rollout)).stdout).toBe('rollout/small-batches unchanged\n');
    const other = await modelgate(
      'apply',
      '-f',
      await file('other.yaml', 'kind: Rollout\nendpoint: small-batches\nto: bert:2\n'),
    );
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('has a rollout to bert:1 in progress');
    ok(await modelgate('rollout', 'abort', 'small-batches'));
  });

  it('refuses a bad file before changing anything, naming the document and field', async () => {
    const bad = await file(
      'bad.yaml',
      `${FILE.replace('maxTokens: 64', 'maxTokens: 8')}---\nkind: Endpoint\nname: third\ntask: raw\nroutes: [{model: "bert:1", weight: 100}]\ntimeout: 5\n`,
    );
    const run = await modelgate('apply', '-f', bad);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad.yaml (document 3): timeout: is not a known field');
    expect((await stored('sentiment')).preprocessing.maxTokens).toBe(32);

    const token = await file('token.yaml', 'kind: Token\nname: ci\n');
    const refused = await modelgate('apply', '-f', token);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('kind Token is not applied from files');
    const missing = await modelgate('apply', '-f', join(dir, 'nope.yaml'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('cannot read it (ENOENT)');
    const task = await file('task.yaml', FILE.replace('task: feature-extraction', 'task: raw'));
    const changed = await modelgate('apply', '-f', task);
    expect(changed.code).toBe(2);
    expect(changed.stderr).toContain('a task cannot change');
  });
});
