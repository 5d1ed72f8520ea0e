import { z } from 'zod';
import { resourceNameSchema } from '../config/spec-fields.schema.js';

/** What a token may do: admins mutate, viewers read. */
export const TOKEN_ROLES = ['admin', 'viewer'] as const;

/** One of TOKEN_ROLES. */
export type TokenRole = (typeof TOKEN_ROLES)[number];

/** `POST /v1/tokens`: a new API token. */
export const createTokenSchema = z.strictObject({
  name: resourceNameSchema.describe('Token name: who or what holds it, e.g. `ci` or `worker-pool-a`'),
  role: z.enum(TOKEN_ROLES).describe('admin (may change things) or viewer (reads only)'),
});

/** The body of `POST /v1/tokens`. */
export type CreateTokenRequest = z.input<typeof createTokenSchema>;

/** A token as the API lists it: never the secret, never its hash. */
export const tokenViewSchema = z.object({
  name: z.string().describe('Token name'),
  role: z.enum(TOKEN_ROLES).describe('admin or viewer'),
  createdAt: z.string().describe('ISO time it was created'),
  revokedAt: z.string().nullable().describe('ISO time it was revoked; null while it is valid'),
});

/** A token as the API lists it. */
export type TokenView = z.infer<typeof tokenViewSchema>;

/** The answer of `POST /v1/tokens`: the token and its secret, which the registry never shows again. */
export const createdTokenViewSchema = tokenViewSchema.extend({
  token: z.string().describe('The secret: send it as `authorization: Bearer <token>`'),
});

/** A new token with its secret. */
export type CreatedTokenView = z.infer<typeof createdTokenViewSchema>;
