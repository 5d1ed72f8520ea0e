/**
 * Which READY versions of a model the workers load (Triton's model version policy). Whatever the
 * policy, every version an endpoint routes (primary, canary or shadow) is loaded: the policy only
 * adds versions for calls that name one (`/serve/<endpoint>/<version>`,
 * `/v2/models/<name>/versions/<version>/infer`) or name the model without a version (the newest
 * loaded one answers). Without a policy a model keeps its newest READY version loaded (`latest 1`),
 * so a version registered for a canary is warm before a route shifts traffic to it.
 */
import { z } from 'zod';
import { reportDuplicates } from './report-duplicates.js';
import { positiveIntSchema, resourceNameSchema } from './spec-fields.schema.js';

/** Which READY versions of one model are loaded besides the routed ones. */
export const versionPolicySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('all').describe('Every READY version') }),
  z.strictObject({
    kind: z.literal('latest').describe('The newest `count` READY versions'),
    count: positiveIntSchema.max(1000).describe('How many of the newest READY versions'),
  }),
  z.strictObject({
    kind: z.literal('specific').describe('The listed `versions`'),
    versions: z
      .array(positiveIntSchema.max(999_999_999))
      .min(1, 'must name at least one version')
      .max(1000)
      .refine((versions) => new Set(versions).size === versions.length, 'must not repeat a version')
      .describe('Version numbers, e.g. [1, 3]'),
  }),
]);

/** Which READY versions of one model are loaded besides the routed ones. */
export type VersionPolicy = z.infer<typeof versionPolicySchema>;

/** The policy a model without one follows. */
export const DEFAULT_VERSION_POLICY: VersionPolicy = { kind: 'latest', count: 1 };

/** One model's policy, as the config snapshot carries it. */
export const modelVersionPolicySchema = z.object({
  model: resourceNameSchema.describe('Model name (every version of it).'),
  policy: versionPolicySchema.describe('Which READY versions workers load besides the routed ones.'),
});

/** One model's policy, as the config snapshot carries it. */
export type ModelVersionPolicy = z.infer<typeof modelVersionPolicySchema>;

/** The snapshot's list of policies, one per model name at most. */
export const versionPoliciesSchema = z
  .array(modelVersionPolicySchema)
  .default([])
  .superRefine((policies, ctx) =>
    reportDuplicates(
      ctx,
      policies,
      (entry) => entry.model,
      (i) => [i, 'model'],
      'version policy for model',
    ),
  );

/** The fields of the snapshot the selection reads. */
export interface VersionSelectionInput {
  models: readonly { id: string; name: string; version: string }[];
  endpoints: readonly { routes: readonly { model: string }[] }[];
  versionPolicies?: readonly ModelVersionPolicy[];
}

/**
 * The ids (`name:version`) of the snapshot's models that should be loaded: every routed one, plus
 * what each model's policy (DEFAULT_VERSION_POLICY when it has none) selects among its versions.
 */
export function selectLoadedVersions(snapshot: VersionSelectionInput): Set<string> {
  const loaded = new Set<string>();
  const known = new Set(snapshot.models.map((model) => model.id));
  for (const endpoint of snapshot.endpoints) {
    for (const route of endpoint.routes) if (known.has(route.model)) loaded.add(route.model);
  }
  const policies = new Map((snapshot.versionPolicies ?? []).map((entry) => [entry.model, entry.policy]));
  const byName = new Map<string, { id: string; version: number }[]>();
  for (const model of snapshot.models) {
    const versions = byName.get(model.name) ?? [];
    versions.push({ id: model.id, version: Number(model.version) });
    byName.set(model.name, versions);
  }
  for (const [name, versions] of byName) {
    for (const id of selectByPolicy(policies.get(name) ?? DEFAULT_VERSION_POLICY, versions)) loaded.add(id);
  }
  return loaded;
}

function selectByPolicy(
  policy: VersionPolicy,
  versions: readonly { id: string; version: number }[],
): string[] {
  switch (policy.kind) {
    case 'all':
      return versions.map((v) => v.id);
    case 'latest':
      return [...versions]
        .sort((a, b) => b.version - a.version)
        .slice(0, policy.count)
        .map((v) => v.id);
    case 'specific': {
      const wanted = new Set(policy.versions);
      return versions.filter((v) => wanted.has(v.version)).map((v) => v.id);
    }
  }
}

/** A policy as one line: `all`, `latest 2`, `specific 1,3`. */
export function describeVersionPolicy(policy: VersionPolicy): string {
  switch (policy.kind) {
    case 'all':
      return 'all';
    case 'latest':
      return `latest ${policy.count}`;
    case 'specific':
      return `specific ${policy.versions.join(',')}`;
  }
}
