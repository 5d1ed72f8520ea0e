import { SetMetadata } from '@nestjs/common';
import { type TokenRole } from '@modelgate/contracts';

/** Who may call a route: anyone (probes, metrics), or a token of at least `role`. */
export type RouteAccess = { kind: 'public' } | { kind: 'token'; role: TokenRole };

/** Metadata key the AuthGuard reads. Every route must carry it; the guard refuses routes without. */
export const ROUTE_ACCESS = 'modelgate:route-access';

/** The route needs a token of `role`: `admin` for every mutation, `viewer` (or admin) for reads. */
export const RequireRole = (role: TokenRole): MethodDecorator =>
  SetMetadata<string, RouteAccess>(ROUTE_ACCESS, { kind: 'token', role });

/** The route answers without a token (health probes, metrics). */
export const PublicRoute = (): MethodDecorator =>
  SetMetadata<string, RouteAccess>(ROUTE_ACCESS, { kind: 'public' });
