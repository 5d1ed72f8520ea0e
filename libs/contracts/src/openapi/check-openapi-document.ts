// Checks of a generated OpenAPI document that its apps' unit tests run: the document promises
// nothing the app does not do, and leaves out nothing it serves.
import {
  type ApiBody,
  type ApiDescription,
  type ApiMethod,
  type JsonObject,
  type OpenApiDocument,
} from './openapi-document.js';

/** A route as a server registers it: `POST /serve/:endpoint`. */
export interface ServedRoute {
  method: string;
  /** Express/Fastify style, `:param` segments. */
  path: string;
}

/** `/serve/:endpoint` → `/serve/{endpoint}`. */
export function toOpenApiPath(path: string): string {
  const templated = path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  return templated.length > 1 ? templated.replace(/\/$/, '') : templated;
}

/** The served routes the document does not describe, as `METHOD /path` lines. */
export function undocumentedRoutes(document: OpenApiDocument, served: readonly ServedRoute[]): string[] {
  return served
    .filter((route) => {
      const item = document.paths[toOpenApiPath(route.path)];
      return item?.[route.method.toLowerCase() as ApiMethod] === undefined;
    })
    .map((route) => `${route.method.toUpperCase()} ${route.path}`);
}

/** The documented operations no served route answers, as `METHOD /path` lines. */
export function unservedOperations(document: OpenApiDocument, served: readonly ServedRoute[]): string[] {
  const servedKeys = new Set(served.map((r) => `${r.method.toUpperCase()} ${toOpenApiPath(r.path)}`));
  return Object.entries(document.paths)
    .flatMap(([path, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`))
    .filter((key) => !servedKeys.has(key));
}

function bodyProblems(where: string, body: ApiBody | undefined): string[] {
  if (!body) return [];
  return Object.entries(body.examples ?? {}).flatMap(([name, example]) => {
    const parsed = body.schema.safeParse(example.value);
    return parsed.success
      ? []
      : [`${where}: example '${name}' does not pass ${body.name}: ${parsed.error.issues[0]?.message ?? ''}`];
  });
}

function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      if (key === '$ref' && typeof inner === 'string') found.push(inner);
      else refs(inner, found);
    }
  }
  return found;
}

function lookUp(document: OpenApiDocument, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    if (typeof node !== 'object' || node === null || !(key in node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function resolves(document: OpenApiDocument, ref: string): boolean {
  return lookUp(document, ref) !== undefined;
}

/** `schema`, or what its `$ref` leads to. */
function followRef(document: OpenApiDocument, schema: JsonObject): JsonObject {
  return typeof schema.$ref === 'string' ? ((lookUp(document, schema.$ref) ?? {}) as JsonObject) : schema;
}

/** The schemas nested in `schema` other than its properties: alternatives, items, map values. */
function innerSchemas(schema: JsonObject, where: string): [JsonObject, string][] {
  const inner: [JsonObject, string][] = [];
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    for (const alternative of Array.isArray(schema[key]) ? (schema[key] as JsonObject[]) : []) {
      // An alternative with a title (a task's body) is named by it: `ServeRequest(text-ranking).top_n`.
      const title = alternative.title;
      inner.push([alternative, typeof title === 'string' ? `${where}(${title})` : where]);
    }
  }
  const items = [
    ...(Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonObject[]) : []),
    ...(typeof schema.items === 'object' && schema.items !== null ? [schema.items as JsonObject] : []),
  ];
  for (const item of items) inner.push([item, `${where}[]`]);
  const values = schema.additionalProperties;
  if (typeof values === 'object' && values !== null) inner.push([values as JsonObject, `${where}.*`]);
  return inner;
}

/**
 * The properties of `schema`, at any depth (through `$ref`s, alternatives, array items and map
 * values), without a description, as dotted paths. A schema met before (a shared or recursive
 * `$ref`) is walked once, under the first path that reached it.
 */
function undescribedProperties(
  document: OpenApiDocument,
  schema: JsonObject,
  where: string,
  seen: Set<JsonObject>,
): string[] {
  const resolved = followRef(document, schema);
  if (seen.has(resolved)) return [];
  seen.add(resolved);
  const nested = innerSchemas(resolved, where).flatMap(([inner, path]) =>
    undescribedProperties(document, inner, path, seen),
  );
  const properties = Object.entries((resolved.properties ?? {}) as Record<string, JsonObject>);
  return [
    ...nested,
    ...properties.flatMap(([name, property]) => {
      const path = `${where}.${name}`;
      const described =
        typeof property.description === 'string' ||
        typeof followRef(document, property).description === 'string';
      return [...(described ? [] : [path]), ...undescribedProperties(document, property, path, seen)];
    }),
  ];
}

type Content = Record<string, { schema?: JsonObject }> | undefined;

/**
 * Every field, at any depth, of every request body and every 200 answer's body (of each
 * alternative of a union body) that has no description, as `Component.field.inner` lines
 * (`[]` for an array's items, `.*` for a map's values): Swagger UI would show it bare.
 */
export function undescribedFields(document: OpenApiDocument): string[] {
  const found = new Set<string>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      const request = (operation?.requestBody as { content?: Content } | undefined)?.content;
      const answer = (operation?.responses as Record<string, { content?: Content }> | undefined)?.['200']
        ?.content;
      for (const media of [...Object.values(request ?? {}), ...Object.values(answer ?? {})]) {
        if (!media.schema) continue;
        const ref = media.schema.$ref;
        const name = typeof ref === 'string' ? (ref.split('/').pop() ?? ref) : String(operation?.operationId);
        for (const line of undescribedProperties(document, media.schema, name, new Set())) found.add(line);
      }
    }
  }
  return [...found];
}

/**
 * What is wrong with `document`, generated from `api`, as sentences (none when it is sound):
 * a `$ref` that leads nowhere, an example its own zod schema refuses, a path parameter the
 * template and the route's schema disagree on, or an operation id used twice.
 */
export function checkOpenApiDocument(api: ApiDescription, document: OpenApiDocument): string[] {
  const problems: string[] = [];
  for (const ref of refs(document)) {
    if (!resolves(document, ref)) problems.push(`$ref ${ref} does not resolve`);
  }
  const operationIds = new Set<string>();
  for (const route of api.routes) {
    const where = `${route.method.toUpperCase()} ${route.path}`;
    if (operationIds.has(route.operationId))
      problems.push(`${where}: operationId ${route.operationId} repeats`);
    operationIds.add(route.operationId);
    const templated = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
    const declared = Object.keys(route.pathParams?.shape ?? {}).sort();
    if (templated.join() !== declared.join()) {
      problems.push(`${where}: path parameters ${declared.join(', ')} do not match the template`);
    }
    problems.push(...bodyProblems(`${where} request`, route.body));
    for (const body of route.bodyAlternatives ?? []) problems.push(...bodyProblems(`${where} request`, body));
    for (const [status, response] of Object.entries(route.responses)) {
      problems.push(...bodyProblems(`${where} ${status}`, response.body));
      for (const body of response.alternatives ?? [])
        problems.push(...bodyProblems(`${where} ${status}`, body));
    }
  }
  return problems;
}
