import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  checkOpenApiDocument,
  toOpenApiPath,
  undescribedFields,
  undocumentedRoutes,
  unservedOperations,
} from './check-openapi-document.js';
import { codesForStatus, errorResponses } from './error-responses.js';
import {
  type ApiBody,
  type ApiDescription,
  type ApiRoute,
  type OpenApiDocument,
  buildOpenApiDocument,
} from './openapi-document.js';

const item = z.object({ name: z.string(), size: z.int().default(1) });
const itemBody: ApiBody = {
  name: 'Item',
  schema: item,
  examples: { small: { summary: 'A small one', value: { name: 'a' } } },
};
const errorBody = { name: 'Error', schema: z.object({ error: z.object({ code: z.string() }) }) };

function api(routes: ApiRoute[]): ApiDescription {
  return {
    title: 't',
    version: '1',
    description: 'd',
    tags: [{ name: 'items', description: 'Items' }],
    routes,
  };
}

const createItem: ApiRoute = {
  method: 'post',
  path: '/items/{shelf}',
  operationId: 'createItem',
  tag: 'items',
  summary: 'Create an item',
  pathParams: z.object({ shelf: z.string().describe('Where it goes') }),
  query: z.object({ dryRun: z.boolean().optional() }),
  headers: [{ name: 'x-request-id', description: 'Echoed' }],
  body: itemBody,
  responses: { '201': { description: 'Created', body: { name: 'ItemView', schema: item } } },
};

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument(api([createItem]));

  it('writes an OpenAPI 3.1 operation with its parameters, body and answers', () => {
    expect(document.openapi).toBe('3.1.0');
    const operation = document.paths['/items/{shelf}']?.post;
    expect(operation?.parameters).toEqual([
      { name: 'shelf', in: 'path', required: true, description: 'Where it goes', schema: { type: 'string' } },
      { name: 'dryRun', in: 'query', required: false, schema: { type: 'boolean' } },
      {
        name: 'x-request-id',
        in: 'header',
        required: false,
        description: 'Echoed',
        schema: { type: 'string' },
      },
    ]);
    expect(operation?.requestBody).toEqual({
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/Item' }, examples: itemBody.examples },
      },
    });
  });

  it('reads request bodies as zod input (defaulted fields optional) and answers as output (always present)', () => {
    expect(document.components.schemas.Item?.required).toEqual(['name']);
    expect(document.components.schemas.ItemView?.required).toEqual(['name', 'size']);
    expect(document.components.schemas.Item).not.toHaveProperty('$schema');
  });

  it('writes a schema used by several routes once, and refuses two schemas under one name', () => {
    const twice = buildOpenApiDocument(
      api([createItem, { ...createItem, method: 'put', operationId: 'replaceItem' }]),
    );
    expect(Object.keys(twice.components.schemas).sort()).toEqual(['Item', 'ItemView']);
    const clash = { ...createItem, method: 'put' as const, body: { name: 'Item', schema: z.string() } };
    expect(() => buildOpenApiDocument(api([createItem, clash]))).toThrow(
      "two different schemas are both named 'Item'",
    );
  });

  it("gives a parameter the first of its schema's examples, for Swagger UI to fill in", () => {
    const withExample = buildOpenApiDocument(
      api([
        { ...createItem, pathParams: z.object({ shelf: z.string().meta({ examples: ['top', 'low'] }) }) },
      ]),
    );
    expect(withExample.paths['/items/{shelf}']?.post?.parameters).toContainEqual({
      name: 'shelf',
      in: 'path',
      required: true,
      schema: { type: 'string', examples: ['top', 'low'] },
      example: 'top',
    });
  });

  it("writes a response's alternative bodies as more media types of the same status, and checks their examples", () => {
    const events: ApiBody = {
      name: 'ItemEvent',
      contentType: 'text/event-stream',
      schema: z.object({ name: z.string() }),
      examples: { bad: { summary: 'Not an event', value: { size: 2 } } },
    };
    const streamed: ApiRoute = {
      ...createItem,
      responses: {
        '201': { description: 'Created', body: { name: 'ItemView', schema: item }, alternatives: [events] },
      },
    };
    const description = api([streamed]);
    const built = buildOpenApiDocument(description);
    const responses = built.paths['/items/{shelf}']?.post?.responses as Record<string, { content: object }>;
    expect(responses['201']?.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/ItemView' } },
      'text/event-stream': {
        schema: { $ref: '#/components/schemas/ItemEvent' },
        examples: events.examples,
      },
    });
    expect(checkOpenApiDocument(description, built)).toEqual([
      expect.stringMatching(/^POST \/items\/\{shelf\} 201: example 'bad' does not pass ItemEvent/) as unknown,
    ]);
  });

  it('refuses a route described twice', () => {
    expect(() => buildOpenApiDocument(api([createItem, createItem]))).toThrow(
      'POST /items/{shelf} is described twice',
    );
  });

  it('gives a route its own security, the document its default', () => {
    const secured = buildOpenApiDocument({
      ...api([{ ...createItem, security: [] }]),
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      defaultSecurity: ['bearer'],
    });
    expect(secured.security).toEqual([{ bearer: [] }]);
    expect(secured.paths['/items/{shelf}']?.post?.security).toEqual([]);
  });
});

describe('checkOpenApiDocument', () => {
  it('finds nothing wrong with a sound document', () => {
    const description = api([createItem]);
    expect(checkOpenApiDocument(description, buildOpenApiDocument(description))).toEqual([]);
  });

  it('reports an example its schema refuses, a path parameter the template lacks and a dangling $ref', () => {
    const description = api([
      {
        ...createItem,
        pathParams: z.object({ shelf: z.string(), row: z.string() }),
        body: { ...itemBody, examples: { bad: { summary: 'No name', value: { size: 2 } } } },
      },
    ]);
    const document = buildOpenApiDocument(description);
    document.components.schemas.Dangling = { $ref: '#/components/schemas/Missing' };
    expect(checkOpenApiDocument(description, document)).toEqual([
      '$ref #/components/schemas/Missing does not resolve',
      'POST /items/{shelf}: path parameters row, shelf do not match the template',
      expect.stringMatching(/^POST \/items\/\{shelf\} request: example 'bad' does not pass Item: /),
    ]);
  });
});

describe('served routes against the document', () => {
  const document = buildOpenApiDocument(api([createItem]));

  it('names the routes a server serves that the document leaves out, and the reverse', () => {
    const served = [
      { method: 'POST', path: '/items/:shelf' },
      { method: 'GET', path: '/items/:shelf/' },
    ];
    expect(toOpenApiPath('/items/:shelf/')).toBe('/items/{shelf}');
    expect(undocumentedRoutes(document, served)).toEqual(['GET /items/:shelf/']);
    expect(unservedOperations(document, served.slice(1))).toEqual(['POST /items/{shelf}']);
  });
});

describe('undescribedFields', () => {
  it('names the fields without a .describe() at any depth of request bodies and 200 answers', () => {
    const order = z.union([
      z.object({ shelf: z.string().describe('Where it goes'), size: z.int() }).meta({ title: 'by-shelf' }),
      z.object({
        bin: z.string(),
        nested: z.object({ deep: z.string() }).describe('Nested'),
        lines: z.array(z.object({ sku: z.string() })).describe('Lines'),
        notes: z.record(z.string(), z.object({ text: z.string() })).describe('Notes'),
      }),
    ]);
    const document = buildOpenApiDocument(
      api([
        {
          method: 'post',
          path: '/orders',
          operationId: 'order',
          tag: 'items',
          summary: 'Order',
          body: { name: 'Order', schema: order },
          responses: {
            '200': { description: 'Ok', body: itemBody },
            '404': { description: 'Not found', body: errorBody },
          },
        },
      ]),
    );
    expect(undescribedFields(document)).toEqual([
      'Order(by-shelf).size',
      'Order.bin',
      'Order.nested.deep',
      'Order.lines[].sku',
      'Order.notes.*.text',
      'Item.name',
      'Item.size',
    ]);
  });

  it('walks a recursive $ref once', () => {
    const tree = { $ref: '#/components/schemas/Tree' };
    const document = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/trees': { post: { requestBody: { content: { 'application/json': { schema: tree } } } } } },
      components: {
        schemas: {
          Tree: {
            type: 'object',
            properties: {
              label: { type: 'string' },
              children: { type: 'array', description: 'Subtrees', items: tree },
            },
          },
        },
      },
    } as unknown as OpenApiDocument;
    expect(undescribedFields(document)).toEqual(['Tree.label']);
  });
});

describe('errorResponses', () => {
  it('describes each status by the codes that answer with it, with an example of each', () => {
    expect(codesForStatus(503)).toEqual(['MODEL_NOT_READY', 'UNAVAILABLE']);
    const responses = errorResponses([429, 503], errorBody, (code) => ({ error: { code } }));
    expect(responses['503']?.description).toMatch(/^`MODEL_NOT_READY`: .*; `UNAVAILABLE`: /);
    expect(Object.keys(responses['503']?.body?.examples ?? {})).toEqual(['MODEL_NOT_READY', 'UNAVAILABLE']);
    expect(responses['429']?.headers?.map((h) => h.name)).toEqual(['Retry-After']);
  });

  it('refuses a status no code answers with', () => {
    expect(() => errorResponses([418], errorBody, () => ({}))).toThrow('no error code answers with HTTP 418');
  });
});
