import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Prefix of generated tokens, so a leaked one is recognisable in logs and secret scanners. */
export const TOKEN_PREFIX = 'mgt_';

/**
 * A new random API token: `mgt_` + 32 random bytes, base64url. The registry issues these; the
 * standalone launcher makes its admin token in the same format before the registry first starts.
 */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * A token secret given in the environment (REGISTRY_BOOTSTRAP_TOKEN, a node's REGISTRY_TOKEN).
 * Whitespace around it is dropped, as HTTP clients drop it from a header (a Secret made from a
 * file ends in a line break): the registry then stores what clients send. Whitespace inside is
 * refused at start, since `Authorization: Bearer <token>` ends at the first space and such a
 * token could never be sent whole.
 */
export function tokenSecretFromEnv(minLength: number) {
  return z
    .string()
    .trim()
    .min(minLength, `must be at least ${minLength} characters`)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces inside (it is sent as a Bearer token)');
}
