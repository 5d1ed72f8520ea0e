// Checks an OpenAPI 3.1 document as a JSON Schema validator reads it, independently of the zod
// schemas it was generated from: every example must pass the schema it is documented under.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

/** Where the document is mounted for its `#/components/...` references to resolve. */
const DOCUMENT_ID = 'https://modelgate.test/openapi.json';

interface Found {
  where: string;
  schema: Record<string, unknown>;
  value: unknown;
}

function findExamples(node: unknown, where: string, found: Found[]): Found[] {
  if (typeof node !== 'object' || node === null) return found;
  const media = node as { schema?: Record<string, unknown>; examples?: Record<string, { value: unknown }> };
  if (media.schema && media.examples) {
    for (const [name, example] of Object.entries(media.examples)) {
      found.push({ where: `${where} ${name}`, schema: media.schema, value: example.value });
    }
  }
  for (const [key, inner] of Object.entries(node)) findExamples(inner, `${where}/${key}`, found);
  return found;
}

/** A validator for one component of `document` (`ServeAnswer`), for checking real answers. */
export function componentValidator(
  document: object,
  component: string,
): { validate(value: unknown): boolean; errors(): string } {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/${component}` });
  return { validate: (value) => validate(value), errors: () => ajv.errorsText(validate.errors) };
}

/**
 * The examples of `document` its own JSON Schemas refuse, as `where: why` lines; throws when the
 * document has no examples at all (a check of nothing).
 */
export function refusedOpenApiExamples(document: { paths: object }): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const examples = findExamples(document.paths, '', []);
  if (examples.length === 0) throw new Error('the document has no examples');
  // One validator per schema: a compile resolves its references through the whole document.
  const validators = new Map<string, ValidateFunction>();
  return examples.flatMap(({ where, schema, value }) => {
    const key = JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(
        typeof schema.$ref === 'string' ? { $ref: `${DOCUMENT_ID}${schema.$ref}` } : schema,
      );
      validators.set(key, validate);
    }
    return validate(value) ? [] : [`${where}: ${ajv.errorsText(validate.errors)}`];
  });
}
