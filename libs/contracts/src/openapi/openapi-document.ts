// An OpenAPI 3.1 document generated from the zod schemas an app validates with: each route names
// its schemas, zod's own JSON Schema output (draft 2020-12, which OpenAPI 3.1 uses as is) fills
// `components.schemas`, and a schema shared by several routes is written once and referenced.
import { z } from 'zod';

/** HTTP methods an OpenAPI path item holds. */
export type ApiMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A named example: what Swagger UI offers in its drop-down and sends on "Try it out". */
export interface ApiExample {
  summary: string;
  value: unknown;
}

/** A body (request or answer): its schema under a component name, with examples. */
export interface ApiBody {
  /** The component name in `components.schemas`; one name per schema. */
  name: string;
  schema: z.ZodType;
  /** Examples checked against `schema` (checkOpenApiDocument). */
  examples?: Record<string, ApiExample>;
  /** `application/json` unless given. */
  contentType?: string;
}

/** A request or answer header. */
export interface ApiHeader {
  name: string;
  description: string;
  required?: boolean;
  /** A string unless given. */
  schema?: z.ZodType;
}

/** One answer of a route. */
export interface ApiResponse {
  description: string;
  body?: ApiBody;
  /** The same answer in other media types, each with its own `contentType` (e.g. `text/event-stream` when the request asks to stream). */
  alternatives?: readonly ApiBody[];
  headers?: readonly ApiHeader[];
}

/** One route, described by the schemas that validate it. */
export interface ApiRoute {
  method: ApiMethod;
  /** OpenAPI path template: `/serve/{endpoint}`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** One property per `{param}` of the path; descriptions come from the property's `.describe()`. */
  pathParams?: z.ZodObject;
  query?: z.ZodObject;
  headers?: readonly ApiHeader[];
  body?: ApiBody;
  /** The request body in other media types, each with its own `contentType` (e.g. a raw image). */
  bodyAlternatives?: readonly ApiBody[];
  /** By status (`200`, `4XX`, `default`). */
  responses: Record<string, ApiResponse>;
  /** Security requirement names; the document's default when absent, `[]` for none. */
  security?: readonly string[];
}

/** A whole API. */
export interface ApiDescription {
  title: string;
  version: string;
  description: string;
  tags: readonly { name: string; description: string }[];
  routes: readonly ApiRoute[];
  /** Security schemes by name (OpenAPI objects, e.g. `{type: 'http', scheme: 'bearer'}`). */
  securitySchemes?: Record<string, Record<string, unknown>>;
  /** Schemes every route needs unless it says otherwise. */
  defaultSecurity?: readonly string[];
}

/** A JSON object of the document; OpenAPI's own types are not needed to write or check it. */
export type JsonObject = Record<string, unknown>;

/** The generated document: OpenAPI 3.1 as plain JSON. */
export interface OpenApiDocument extends JsonObject {
  openapi: '3.1.0';
  info: JsonObject;
  paths: Record<string, Partial<Record<ApiMethod, JsonObject>>>;
  components: { schemas: Record<string, JsonObject>; securitySchemes?: Record<string, unknown> };
}

const COMPONENT_URI = (id: string): string => `#/components/schemas/${id}`;

/**
 * Collects every body schema under its name, request bodies as zod's `input` (defaults optional)
 * and answers as its `output` (defaults filled in), so each reads as the client sees it.
 */
class SchemaComponents {
  private readonly input = z.registry<{ id: string }>();
  private readonly output = z.registry<{ id: string }>();
  private readonly names = new Map<string, z.ZodType>();

  /** A `$ref` to `body`'s schema, registered under its name. */
  ref(body: ApiBody, io: 'input' | 'output'): JsonObject {
    const known = this.names.get(body.name);
    if (known !== undefined && known !== body.schema) {
      throw new Error(`two different schemas are both named '${body.name}'`);
    }
    this.names.set(body.name, body.schema);
    const registry = io === 'input' ? this.input : this.output;
    if (!registry.has(body.schema)) registry.add(body.schema, { id: body.name });
    return { $ref: COMPONENT_URI(body.name) };
  }

  /** `components.schemas`. */
  toJson(): Record<string, JsonObject> {
    const schemas: Record<string, JsonObject> = {};
    for (const io of ['input', 'output'] as const) {
      const generated = z.toJSONSchema(io === 'input' ? this.input : this.output, {
        target: 'draft-2020-12',
        io,
        unrepresentable: 'any',
        uri: COMPONENT_URI,
      }).schemas;
      for (const [name, schema] of Object.entries(generated)) {
        // The document is the base of every `#/components/...` reference: no schema of its own.
        const { $schema: _dialect, $id: _id, ...rest } = schema as JsonObject;
        schemas[name] = rest;
      }
    }
    return schemas;
  }
}

/** An inline JSON Schema for a parameter or header, with its description lifted out. */
function inlineSchema(schema: z.ZodType): { schema: JsonObject; description?: string } {
  const {
    $schema: _dialect,
    description,
    ...rest
  } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as JsonObject;
  return typeof description === 'string' ? { schema: rest, description } : { schema: rest };
}

function parameters(where: 'path' | 'query', object: z.ZodObject | undefined): JsonObject[] {
  if (!object) return [];
  return Object.entries(object.shape).map(([name, field]) => {
    const { schema, description } = inlineSchema(field as z.ZodType);
    // `.meta({examples: [...]})`: the first is the parameter's example, which Swagger UI fills in.
    const example = Array.isArray(schema.examples) ? (schema.examples as unknown[])[0] : undefined;
    return {
      name,
      in: where,
      required: where === 'path' || !(field as z.ZodType).safeParse(undefined).success,
      ...(description === undefined ? {} : { description }),
      schema,
      ...(example === undefined ? {} : { example }),
    };
  });
}

function headerSchema(header: ApiHeader): JsonObject {
  return header.schema ? inlineSchema(header.schema).schema : { type: 'string' };
}

function content(body: ApiBody, components: SchemaComponents, io: 'input' | 'output'): JsonObject {
  return {
    [body.contentType ?? 'application/json']: {
      schema: components.ref(body, io),
      ...(body.examples ? { examples: body.examples } : {}),
    },
  };
}

function operation(route: ApiRoute, components: SchemaComponents): JsonObject {
  const headers = (route.headers ?? []).map((header) => ({
    name: header.name,
    in: 'header',
    required: header.required ?? false,
    description: header.description,
    schema: headerSchema(header),
  }));
  const responses = Object.fromEntries(
    Object.entries(route.responses).map(([status, response]) => [
      status,
      {
        description: response.description,
        ...(response.headers?.length
          ? {
              headers: Object.fromEntries(
                response.headers.map((h) => [
                  h.name,
                  { description: h.description, schema: headerSchema(h) },
                ]),
              ),
            }
          : {}),
        ...(response.body
          ? {
              content: Object.assign(
                content(response.body, components, 'output'),
                ...(response.alternatives ?? []).map((body) => content(body, components, 'output')),
              ) as JsonObject,
            }
          : {}),
      },
    ]),
  );
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    ...(route.description === undefined ? {} : { description: route.description }),
    parameters: [...parameters('path', route.pathParams), ...parameters('query', route.query), ...headers],
    ...(route.body
      ? {
          requestBody: {
            required: true,
            content: Object.assign(
              content(route.body, components, 'input'),
              ...(route.bodyAlternatives ?? []).map((body) => content(body, components, 'input')),
            ) as JsonObject,
          },
        }
      : {}),
    responses,
    ...(route.security === undefined ? {} : { security: route.security.map((name) => ({ [name]: [] })) }),
  };
}

/** The OpenAPI 3.1 document of `api`; throws when two schemas share a name or a route repeats. */
export function buildOpenApiDocument(api: ApiDescription): OpenApiDocument {
  const components = new SchemaComponents();
  const paths: OpenApiDocument['paths'] = {};
  for (const route of api.routes) {
    const item = (paths[route.path] ??= {});
    if (item[route.method]) throw new Error(`${route.method.toUpperCase()} ${route.path} is described twice`);
    item[route.method] = operation(route, components);
  }
  return {
    openapi: '3.1.0',
    info: { title: api.title, version: api.version, description: api.description },
    tags: api.tags.map((tag) => ({ ...tag })),
    ...(api.defaultSecurity ? { security: api.defaultSecurity.map((name) => ({ [name]: [] })) } : {}),
    paths,
    components: {
      schemas: components.toJson(),
      ...(api.securitySchemes ? { securitySchemes: api.securitySchemes } : {}),
    },
  };
}
