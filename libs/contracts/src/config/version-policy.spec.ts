import { describe, expect, it } from 'vitest';
import { parseConfigSnapshot } from './config-snapshot.schema.js';
import {
  type ModelVersionPolicy,
  describeVersionPolicy,
  selectLoadedVersions,
  versionPolicySchema,
} from './version-policy.js';

function models(name: string, ...versions: number[]) {
  return versions.map((v) => ({ id: `${name}:${v}`, name, version: String(v) }));
}

function endpoint(...routed: string[]) {
  return { routes: routed.map((model) => ({ model })) };
}

function loaded(
  all: ReturnType<typeof models>,
  endpoints: ReturnType<typeof endpoint>[],
  versionPolicies?: ModelVersionPolicy[],
) {
  return [
    ...selectLoadedVersions({ models: all, endpoints, ...(versionPolicies ? { versionPolicies } : {}) }),
  ].sort();
}

describe('selectLoadedVersions', () => {
  it('loads the routed versions and, without a policy, the newest version of each model', () => {
    const all = [...models('demo', 1, 2, 3, 4, 5), ...models('other', 2, 7)];
    expect(loaded(all, [endpoint('demo:1')])).toEqual(['demo:1', 'demo:5', 'other:7']);
  });

  it('loads canaries and shadows like primaries', () => {
    expect(loaded(models('demo', 1, 2, 3, 4), [endpoint('demo:1', 'demo:2', 'demo:3')])).toEqual([
      'demo:1',
      'demo:2',
      'demo:3',
      'demo:4',
    ]);
  });

  it('all: every version', () => {
    expect(loaded(models('demo', 1, 2, 3), [], [{ model: 'demo', policy: { kind: 'all' } }])).toEqual([
      'demo:1',
      'demo:2',
      'demo:3',
    ]);
  });

  it('latest N: the N highest version numbers, not the N last listed', () => {
    const all = models('demo', 10, 2, 9, 1);
    expect(loaded(all, [], [{ model: 'demo', policy: { kind: 'latest', count: 2 } }])).toEqual([
      'demo:10',
      'demo:9',
    ]);
  });

  it('specific: the listed versions that exist, plus the routed ones', () => {
    const all = models('demo', 1, 2, 3, 4);
    expect(
      loaded(all, [endpoint('demo:4')], [{ model: 'demo', policy: { kind: 'specific', versions: [2, 8] } }]),
    ).toEqual(['demo:2', 'demo:4']);
  });

  it('a policy for one model leaves the others on the default', () => {
    const all = [...models('a', 1, 2), ...models('b', 1, 2)];
    expect(loaded(all, [], [{ model: 'a', policy: { kind: 'all' } }])).toEqual(['a:1', 'a:2', 'b:2']);
  });

  it('ignores routes to models the snapshot does not carry', () => {
    expect(loaded(models('a', 1), [endpoint('gone:3')])).toEqual(['a:1']);
  });
});

describe('versionPolicySchema', () => {
  it('accepts the three kinds', () => {
    expect(versionPolicySchema.parse({ kind: 'all' })).toEqual({ kind: 'all' });
    expect(versionPolicySchema.parse({ kind: 'latest', count: 3 })).toEqual({ kind: 'latest', count: 3 });
    expect(versionPolicySchema.parse({ kind: 'specific', versions: [1, 3] })).toEqual({
      kind: 'specific',
      versions: [1, 3],
    });
  });

  it.each([
    [{ kind: 'latest', count: 0 }],
    [{ kind: 'latest' }],
    [{ kind: 'specific', versions: [] }],
    [{ kind: 'specific', versions: [1, 1] }],
    [{ kind: 'specific', versions: [0] }],
    [{ kind: 'newest' }],
    [{ kind: 'all', count: 2 }],
  ])('refuses %j', (input) => {
    expect(versionPolicySchema.safeParse(input).success).toBe(false);
  });

  it('describes policies in one line', () => {
    expect(describeVersionPolicy({ kind: 'all' })).toBe('all');
    expect(describeVersionPolicy({ kind: 'latest', count: 2 })).toBe('latest 2');
    expect(describeVersionPolicy({ kind: 'specific', versions: [1, 3] })).toBe('specific 1,3');
  });
});

describe('the snapshot', () => {
  it('defaults versionPolicies to none and refuses two policies for one model', () => {
    expect(parseConfigSnapshot({ revision: 1 }).versionPolicies).toEqual([]);
    expect(() =>
      parseConfigSnapshot({
        revision: 1,
        versionPolicies: [
          { model: 'a', policy: { kind: 'all' } },
          { model: 'a', policy: { kind: 'latest', count: 1 } },
        ],
      }),
    ).toThrow(/duplicate version policy for model 'a'/);
  });
});
