import { randomUUID } from 'node:crypto';

/** Printable, bounded ids a client may choose; anything else is replaced. */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The client's request id when it is safe to echo, otherwise a fresh UUID. */
export function resolveRequestId(fromClient: string | string[] | undefined): string {
  const candidate = Array.isArray(fromClient) ? fromClient[0] : fromClient;
  return candidate !== undefined && CLIENT_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}
