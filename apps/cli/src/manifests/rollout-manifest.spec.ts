import { type EndpointView, type RolloutView } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { planRollout, readRolloutManifest } from './rollout-manifest.js';

const manifest = readRolloutManifest(
  { kind: 'Rollout', endpoint: 'sentiment', to: 'bert:2', steps: [50, 100] },
  'f.yaml',
);
const rollout = (to: string, state: RolloutView['state']) => ({ to, state }) as RolloutView;
const routed = (model: string, weight: number) =>
  ({ routes: [{ model, weight, role: 'primary' }] }) as EndpointView;

describe('rollout manifests', () => {
  it('starts a rollout unless one to the same version runs or the endpoint is there already', () => {
    expect(planRollout(manifest, undefined, routed('bert:1', 100))).toEqual({
      endpoint: 'sentiment',
      action: 'create',
      changes: ['start a rollout of sentiment to bert:2'],
    });
    expect(planRollout(manifest, rollout('bert:2', 'RUNNING'), routed('bert:1', 100)).action).toBe(
      'unchanged',
    );
    expect(planRollout(manifest, rollout('bert:2', 'COMPLETED'), routed('bert:2', 100)).action).toBe(
      'unchanged',
    );
    expect(planRollout(manifest, rollout('bert:2', 'ROLLED_BACK'), routed('bert:1', 100)).action).toBe(
      'create',
    );
    expect(planRollout(manifest, undefined, undefined).action).toBe('create');
  });

  it('refuses a rollout to another version while one is in progress, and a document the registry would refuse', () => {
    expect(() => planRollout(manifest, rollout('bert:3', 'PAUSED'), routed('bert:1', 100))).toThrow(
      'endpoint sentiment has a rollout to bert:3 in progress (PAUSED); abort it first',
    );
    expect(() => readRolloutManifest({ kind: 'Rollout', to: 'bert:2' }, 'f.yaml')).toThrow(
      'f.yaml: endpoint:',
    );
    expect(() =>
      readRolloutManifest({ kind: 'Rollout', endpoint: 'e', to: 'bert:2', shadowPercent: 10 }, 'f.yaml'),
    ).toThrow('shadowPercent: applies to the shadow phase');
  });
});
