import { describe, expect, it } from 'vitest';
import { registryRoutes } from '../openapi/registry-openapi.js';
import { routesTakingQuery } from './query-check.js';

describe('routesTakingQuery', () => {
  it("spells each declared route's path as Fastify does", () => {
    expect(
      routesTakingQuery([
        { method: 'get', path: '/v1/models/{name}/{version}', query: undefined },
        { method: 'delete', path: '/v1/things/{name}', query: registryRoutes.find((r) => r.query)?.query },
      ]),
    ).toEqual(new Set(['DELETE /v1/things/:name']));
  });

  it('is, in the registry today, the model list alone', () => {
    expect(routesTakingQuery(registryRoutes)).toEqual(new Set(['GET /v1/models']));
  });
});
