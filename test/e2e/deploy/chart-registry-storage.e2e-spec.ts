// The registry's artifact store (REGISTRY_ARTIFACT_DIR) against its replicas and its update strategy:
// more than one replica needs a store every replica shares (a ReadWriteMany claim), and a claim that
// attaches to one node or one pod needs the old pod gone before the new one starts (Recreate).
import { describe, expect, it } from 'vitest';
import {
  failureOf,
  findObject,
  type K8sObject,
  onDefaults,
  renderChart,
  templateArgs,
} from './support/helm.js';

type Persistence = Record<string, unknown>;

/** The registry Deployment rendered with `replicaCount` and `persistence` on the default values. */
function registryWith(replicaCount: number, persistence: Persistence = {}): K8sObject {
  return findObject(
    renderChart(onDefaults({ values: { registry: { replicaCount, persistence } } })),
    'Deployment',
    '-registry',
  );
}

/** helm's message refusing `replicaCount` with `persistence`. */
function refusal(replicaCount: number, persistence: Persistence = {}): string {
  return failureOf(templateArgs({ values: { registry: { replicaCount, persistence } } }));
}

const specOf = (deployment: K8sObject) =>
  deployment.spec as { replicas: number; strategy?: { type: string } };

describe('registry replicas and the artifact store', () => {
  it('refuses more than one replica on the default ReadWriteOnce claim, naming the settings to change', () => {
    expect(refusal(2)).toMatch(
      /registry.replicaCount is 2, but the artifacts claim's registry.persistence.accessModes \(ReadWriteOnce\) let pods on one node .* would hang on a Multi-Attach error or stay Pending. To run several, set registry.persistence.accessModes to \[ReadWriteMany\]/,
    );
    expect(refusal(3, { accessModes: ['ReadWriteOncePod'] })).toMatch(
      /registry.replicaCount is 3, but the artifacts claim's registry.persistence.accessModes \(ReadWriteOncePod\)/,
    );
  });

  it('refuses more than one replica without persistence, where each pod would keep its own artifacts', () => {
    expect(refusal(2, { enabled: false })).toMatch(
      /registry.replicaCount is 2, but with registry.persistence.enabled false each registry pod keeps artifacts on its own emptyDir: .*missing on the others. Enable registry.persistence/,
    );
  });

  it('renders several replicas on a ReadWriteMany claim, rolling them since every node can attach it', () => {
    for (const accessModes of [['ReadWriteMany'], ['ReadWriteOnce', 'ReadWriteMany']]) {
      const registry = registryWith(2, { accessModes });
      expect(specOf(registry).replicas).toBe(2);
      expect(specOf(registry).strategy).toBeUndefined();
    }
  });

  it('does not refuse several replicas on an existing claim, whose access modes it cannot see, and recreates its pods', () => {
    const registry = registryWith(2, { existingClaim: 'shared-artifacts' });
    expect(specOf(registry).replicas).toBe(2);
    expect(specOf(registry).strategy).toEqual({ type: 'Recreate' });
  });

  it('recreates the pod on upgrade whenever the claim attaches to one node or one pod (ReadWriteOnce, ReadWriteOncePod)', () => {
    expect(specOf(registryWith(1)).strategy).toEqual({ type: 'Recreate' });
    expect(specOf(registryWith(1, { accessModes: ['ReadWriteOncePod'] })).strategy).toEqual({
      type: 'Recreate',
    });
    expect(specOf(registryWith(1, { enabled: false })).strategy).toBeUndefined();
    expect(specOf(registryWith(0)).replicas).toBe(0);
  });

  it('refuses ReadOnlyMany: the registry writes uploads to the artifact store', () => {
    expect(refusal(1, { accessModes: ['ReadOnlyMany'] })).toMatch(
      /\/registry\/persistence\/accessModes\/0.*value must be one of/,
    );
    expect(refusal(2, { accessModes: ['ReadWriteMany', 'ReadOnlyMany'] })).toMatch(
      /\/registry\/persistence\/accessModes\/1.*value must be one of/,
    );
  });
});
