import { endpointSpecSchema, modelSpecSchema } from '@modelgate/contracts';
import { z } from 'zod';

/** A JSON schema node (draft-07). */
export type JsonSchema = { [keyword: string]: unknown };

/**
 * The `snapshot.models` / `snapshot.endpoints` item schemas of values.schema.json, generated
 * from the contracts' zod schemas (input side: defaulted fields optional) and made strict:
 * every object refuses unknown keys, which the apps' zod parsing would silently drop.
 */
export function snapshotItemDefinitions(): { modelSpec: JsonSchema; endpointSpec: JsonSchema } {
  return {
    modelSpec: strictObjects(toDraft7(modelSpecSchema)),
    endpointSpec: strictObjects(toDraft7(endpointSpecSchema)),
  };
}

function toDraft7(schema: z.ZodType): JsonSchema {
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-7',
  }) as JsonSchema;
  delete generated.$schema;
  return generated;
}

function strictObjects(node: unknown): JsonSchema {
  return transform(node) as JsonSchema;
}

function transform(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(transform);
  if (node === null || typeof node !== 'object') return node;
  const copy: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) copy[key] = transform(value);
  if (copy.type === 'object' && copy.additionalProperties === undefined) copy.additionalProperties = false;
  return copy;
}
