import { type EndpointView, formatModelId, type Route, type RouteRole } from '@modelgate/contracts';
import { type EntityManager } from 'typeorm';
import { type EndpointEntity } from './endpoint.entity.js';

/** The API view of an endpoint row and its routes. */
export function toEndpointView(row: EndpointEntity, routes: Route[]): EndpointView {
  return {
    name: row.name,
    task: row.task,
    routes,
    preprocessing: row.preprocessing,
    postprocessing: row.postprocessing,
    stickyHeader: row.stickyHeader,
    timeoutMs: row.timeoutMs,
    generation: row.generation,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

interface RouteRow {
  endpoint_id: string;
  weight: number;
  role: RouteRole;
  name: string;
  version: number;
}

/** Routes of the given endpoints (all when `endpointIds` is undefined), by endpoint id, in stored order. */
export async function loadRoutes(
  manager: EntityManager,
  endpointIds?: readonly string[],
): Promise<Map<string, Route[]>> {
  const filter = endpointIds === undefined ? '' : 'WHERE r.endpoint_id = ANY($1::uuid[])';
  const rows = await manager.query<RouteRow[]>(
    `SELECT r.endpoint_id, r.weight, r.role, m.name, m.version
     FROM endpoint_routes r JOIN models m ON m.id = r.model_id
     ${filter} ORDER BY r.endpoint_id, r.position`,
    endpointIds === undefined ? [] : [endpointIds],
  );
  const byEndpoint = new Map<string, Route[]>();
  for (const row of rows) {
    const list = byEndpoint.get(row.endpoint_id) ?? [];
    list.push({ model: formatModelId(row.name, String(row.version)), weight: row.weight, role: row.role });
    byEndpoint.set(row.endpoint_id, list);
  }
  return byEndpoint;
}
