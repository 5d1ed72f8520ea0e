import { randomBytes } from 'node:crypto';

/** Prefix of generated tokens, so a leaked one is recognisable in logs and secret scanners. */
export const TOKEN_PREFIX = 'mgt_';

/**
 * A new random API token: `mgt_` + 32 random bytes, base64url. The registry issues these; the
 * standalone launcher makes its admin token in the same format before the registry first starts.
 */
export function generateToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}
