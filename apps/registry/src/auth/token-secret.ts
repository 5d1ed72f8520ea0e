import { createHash, timingSafeEqual } from 'node:crypto';

/** The sha256 (hex) a token is stored and looked up by. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}

/**
 * The token an Authorization header carries: `Bearer <token>`, or `Basic` with the token as
 * password (what an artifact URI with user info sends, e.g. `http://x:<token>@registry/...`).
 */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const [scheme, value] = header.trim().split(/\s+/, 2);
  if (value === undefined || value === '') return undefined;
  switch (scheme?.toLowerCase()) {
    case 'bearer':
      return value;
    case 'basic': {
      const decoded = Buffer.from(value, 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      const password = colon === -1 ? '' : decoded.slice(colon + 1);
      return password === '' ? undefined : password;
    }
    default:
      return undefined;
  }
}
