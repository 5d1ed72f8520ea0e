import { resourceNameSchema, safeParseWith } from '@modelgate/contracts';
import { type z } from 'zod';

/**
 * Validates a request body, path or query value with `schema`; throws INVALID_ARGUMENT naming
 * every bad field (`routes[1].weight: ...`), which the filter answers with 400.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, subject: string): z.output<S> {
  const outcome = safeParseWith(schema, value ?? undefined, subject);
  if (!outcome.success) throw outcome.error;
  return outcome.data;
}

/** A resource name from a request path (`endpoint name`, `model name`, `token name`), checked as the API names them. */
export function parseName(name: string, subject: string): string {
  return parseInput(resourceNameSchema, name, subject);
}
