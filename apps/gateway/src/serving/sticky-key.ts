import { DEFAULT_STICKY_HEADER, type EndpointSpec } from '@modelgate/contracts';

/**
 * The sticky route key a request carries: the value of the endpoint's sticky header (the
 * default one when the endpoint is unknown or names none), when it is one string.
 */
export function stickyRouteKey(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  endpoint: Pick<EndpointSpec, 'stickyHeader'> | undefined,
): string | undefined {
  const value = headers[endpoint?.stickyHeader?.toLowerCase() ?? DEFAULT_STICKY_HEADER];
  return typeof value === 'string' ? value : undefined;
}
