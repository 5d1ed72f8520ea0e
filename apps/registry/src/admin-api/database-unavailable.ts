/**
 * Whether an error means "the database cannot be reached right now" rather than a bug: the
 * driver's connection errors, and Postgres' own connection-class and shutdown SQLSTATEs. The
 * admin API answers those 503 UNAVAILABLE (with Retry-After), like any other dependency outage.
 */

/** Socket errors of a connection that is refused, reset or never made. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
]);

/**
 * SQLSTATEs: class 08 (connection exception), 57P01–57P03 (admin shutdown, crash shutdown, cannot
 * connect now: a restart), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/** What node-postgres says when it loses or cannot open a connection (it sets no code then). */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is not established',
];

/** True when `error` (or what it wraps: TypeORM's `driverError`, a `cause`) is a lost database. */
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (depth > 4 || typeof error !== 'object' || error === null) return false;
  const { code, message, driverError, cause } = error as {
    code?: unknown;
    message?: unknown;
    driverError?: unknown;
    cause?: unknown;
  };
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) return true;
  if (typeof message === 'string' && DRIVER_MESSAGES.some((text) => message.includes(text))) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}
