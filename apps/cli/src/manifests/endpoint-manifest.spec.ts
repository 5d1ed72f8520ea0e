import { type EndpointView } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { endpointManifest, planEndpoint } from './endpoint-manifest.js';
import { type Manifest, readManifests } from './read-manifests.js';

const names = (manifests: Manifest[]) =>
  manifests.map((manifest) =>
    manifest.kind === 'Endpoint'
      ? manifest.name
      : manifest.kind === 'Rollout'
        ? manifest.endpoint
        : manifest.request.name,
  );

const view: EndpointView = {
  name: 'sentiment',
  task: 'text-classification',
  routes: [
    { model: 'sst2:1', weight: 90, role: 'primary' },
    { model: 'sst2:2', weight: 10, role: 'canary' },
  ],
  preprocessing: { maxInputChars: 10000, maxTokens: 128, truncation: false, maxBatchItems: 64 },
  postprocessing: { topK: 2 },
  stickyHeader: null,
  timeoutMs: null,
  generation: {},
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
};

describe('endpoint manifests', () => {
  it('reads back what get writes as no change at all', () => {
    const manifest = endpointManifest(view);
    expect(planEndpoint(manifest, view)).toEqual({ name: 'sentiment', action: 'unchanged', changes: [] });
  });

  it('changes only the keys that differ, and replaces routes that differ', () => {
    const plan = planEndpoint(
      {
        kind: 'Endpoint',
        name: 'sentiment',
        task: 'text-classification',
        routes: [{ model: 'sst2:2', weight: 100 }],
        preprocessing: { maxTokens: 256, truncation: false },
        postprocessing: { topK: null },
        timeoutMs: 1500,
      },
      view,
    );
    expect(plan).toEqual({
      name: 'sentiment',
      action: 'update',
      update: { preprocessing: { maxTokens: 256 }, postprocessing: { topK: null }, timeoutMs: 1500 },
      routes: [{ model: 'sst2:2', weight: 100 }],
      changes: [
        'preprocessing.maxTokens: 128 → 256',
        'postprocessing.topK: 2 → default',
        'timeoutMs: default → 1500',
        'routes: sst2:1 90% primary, sst2:2 10% canary → sst2:2 100%',
      ],
    });
  });

  it('creates a missing endpoint on its primary route, then sets a split', () => {
    const plan = planEndpoint({ ...endpointManifest(view), preprocessing: { maxTokens: null } }, undefined);
    expect(plan.action).toBe('create');
    expect(plan.create).toEqual({
      name: 'sentiment',
      task: 'text-classification',
      model: 'sst2:1',
      postprocessing: { topK: 2 },
    });
    expect(plan.routes).toEqual(view.routes);
    const single = planEndpoint(
      {
        kind: 'Endpoint',
        name: 'one',
        task: 'text-classification',
        routes: [{ model: 'sst2:1', weight: 100 }],
      },
      undefined,
    );
    expect(single.routes).toBeUndefined();
  });

  it('refuses a task change', () => {
    expect(() => planEndpoint({ ...endpointManifest(view), task: 'feature-extraction' }, view)).toThrow(
      /a task cannot change/,
    );
  });
});

describe('readManifests', () => {
  it('reads several YAML documents, JSON, and lists of documents', () => {
    const yaml = `kind: Endpoint\nname: a\ntask: raw\nroutes: [{model: "m:1", weight: 100}]\n---\n---\nkind: Endpoint\nname: b\ntask: raw\nroutes: [{model: "m:1", weight: 100}]\n`;
    expect(names(readManifests(yaml, 'f.yaml'))).toEqual(['a', 'b']);
    const json = JSON.stringify([
      { kind: 'Endpoint', name: 'c', task: 'raw', routes: [{ model: 'm:1', weight: 100 }] },
    ]);
    expect(names(readManifests(json, 'f.json'))).toEqual(['c']);
    expect(readManifests('', 'empty.yaml')).toEqual([]);
  });

  it('refuses what it cannot apply, naming the document and the field', () => {
    const one = (body: string) => () => readManifests(body, 'f.yaml');
    expect(one('kind: Token\nname: m')).toThrow(
      /f.yaml: kind Token is not applied from files: .*token create/,
    );
    expect(one('kind: Rollout\nendpoint: m\nto: m:2\nsteps: [50]')).toThrow('f.yaml: steps: must end at 100');
    expect(one('kind: Model\nname: m\ntask: raw')).toThrow(/f.yaml: artifact: is required/);
    expect(one('name: a')).toThrow('f.yaml: kind must be Model, Endpoint or Rollout (got null)');
    expect(one('kind: Endpoint\nname: a\ntask: raw\nroutes: []')).toThrow(
      'routes: must hold at least one route',
    );
    expect(
      one(
        'kind: Endpoint\nname: a\ntask: raw\nroutes: [{model: "m:1", weight: 100}]\npreprocessing: {maxTokenz: 3}',
      ),
    ).toThrow('preprocessing.maxTokenz: is not a known field');
    expect(one('kind: Endpoint\nname: a\n---\n{ not yaml')).toThrow(/document 2\): not YAML or JSON/);
    const twice = 'kind: Endpoint\nname: a\ntask: raw\nroutes: [{model: "m:1", weight: 100}]\n';
    expect(one(`${twice}---\n${twice}`)).toThrow('endpoint a is in the file twice');
  });
});
