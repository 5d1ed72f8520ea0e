import { describe, expect, it } from 'vitest';
import { registryRoutes } from '../openapi/registry-openapi.js';
import {
  carriesSomething,
  routesTakingBody,
  routesTakingQuery,
  undeclaredInput,
} from './undeclared-input-check.js';

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

describe('routesTakingBody', () => {
  it('leaves out the deletes and the rollout moves, which read nothing but their path', () => {
    const taking = routesTakingBody(registryRoutes);
    expect(taking).toContain('PATCH /v1/endpoints/:name');
    expect(taking).toContain('POST /v1/models/upload');
    for (const key of [
      'DELETE /v1/endpoints/:name',
      'DELETE /v1/models/:name/:version',
      'DELETE /v1/tokens/:name',
      'POST /v1/endpoints/:name/rollout/abort',
      'POST /v1/endpoints/:name/rollout/promote',
    ])
      expect(taking).not.toContain(key);
  });
});

describe('carriesSomething', () => {
  it('counts no body, an empty string and {} as nothing, and anything else as something', () => {
    for (const body of [undefined, null, '', {}]) expect(carriesSomething(body)).toBe(false);
    for (const body of [{ force: true }, [], [1], 'x', 0, false, Buffer.from('')])
      expect(carriesSomething(body)).toBe(true);
  });
});

describe('undeclaredInput', () => {
  const declared = { query: new Set(['GET /v1/models']), body: new Set(['POST /v1/endpoints']) };

  it('lets declared inputs through', () => {
    expect(undeclaredInput('GET /v1/models', { name: 'x' }, undefined, declared)).toBeUndefined();
    expect(undeclaredInput('POST /v1/endpoints', {}, { name: 'x' }, declared)).toBeUndefined();
    expect(undeclaredInput('DELETE /v1/endpoints/:name', {}, {}, declared)).toBeUndefined();
  });

  it('refuses a query, naming it first, then a body', () => {
    expect(
      undeclaredInput('DELETE /v1/endpoints/:name', { force: '1' }, { force: true }, declared),
    ).toMatchObject({
      code: 'INVALID_ARGUMENT',
      details: { field: 'force' },
      message: "DELETE /v1/endpoints/:name takes no query parameters; leave out 'force'",
    });
    expect(undeclaredInput('DELETE /v1/endpoints/:name', {}, { force: true }, declared)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: 'DELETE /v1/endpoints/:name takes no body; send the request without one',
    });
  });
});
