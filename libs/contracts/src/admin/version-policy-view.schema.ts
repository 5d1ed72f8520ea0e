import { z } from 'zod';
import { versionPolicySchema } from '../config/version-policy.js';

/** `GET|PUT|DELETE /v1/models/:name/version-policy`: which versions of a model workers load. */
export const versionPolicyViewSchema = z.object({
  model: z.string().describe('Model name'),
  policy: versionPolicySchema.describe('The policy in force'),
  isDefault: z.boolean().describe('True when no policy is set and the default (latest 1) applies'),
  loadedVersions: z
    .array(z.int())
    .describe("Versions workers load at the current revision: the routed ones plus the policy's, ascending"),
});

/** A model's version policy as the admin API shows it. */
export type VersionPolicyView = z.infer<typeof versionPolicyViewSchema>;
