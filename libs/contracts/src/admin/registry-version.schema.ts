import { z } from 'zod';

/** What `GET /v1/version` answers (no token needed). */
export const registryVersionViewSchema = z.object({
  component: z
    .literal('registry')
    .describe('Which modelgate component answered: lets a client tell the registry from a gateway'),
  version: z.string().describe('The release, e.g. `0.1.0`'),
  api: z.literal('v1').describe("The admin API's version, the path prefix"),
});

/** What `GET /v1/version` answers. */
export type RegistryVersionView = z.infer<typeof registryVersionViewSchema>;
