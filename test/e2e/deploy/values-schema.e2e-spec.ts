import { readdirSync, writeFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type JsonSchema, snapshotItemDefinitions } from './support/snapshot-json-schema.js';
import { readRepoFile, repoPath } from './support/repo.js';

const SCHEMA_PATH = ['helm', 'modelgate', 'values.schema.json'] as const;
const schema = JSON.parse(readRepoFile(...SCHEMA_PATH)) as JsonSchema & {
  definitions: Record<string, JsonSchema>;
};

/** Every schema node with `type: object`, with its JSON pointer. */
function objectNodes(node: unknown, pointer = ''): [string, JsonSchema][] {
  if (Array.isArray(node)) return node.flatMap((item, i) => objectNodes(item, `${pointer}/${i}`));
  if (node === null || typeof node !== 'object') return [];
  const own: [string, JsonSchema][] =
    (node as JsonSchema).type === 'object' ? [[pointer, node as JsonSchema]] : [];
  return [...own, ...Object.entries(node).flatMap(([key, value]) => objectNodes(value, `${pointer}/${key}`))];
}

/**
 * Whether a values.yaml key path is a chart option (documented in values.yaml) rather than a field
 * of a Kubernetes structure passed through as a whole (resources, selectors, affinity, label
 * maps: the schema types those with a shared `$ref` definition, documented at the key above).
 */
function isChartOption(path: readonly string[]): boolean {
  let node: JsonSchema | undefined = schema;
  for (const key of path.slice(0, -1)) {
    if (node === undefined || node.$ref !== undefined) return false;
    node = (node.properties as Record<string, JsonSchema> | undefined)?.[key];
  }
  return node !== undefined && node.$ref === undefined;
}

/**
 * Chart options in values.yaml without a comment line right above them (keys inside list items,
 * like the default toleration, are examples and need none).
 */
function undocumentedKeys(text: string): string[] {
  const stack: { indent: number; key: string | undefined }[] = [];
  const missing: string[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return;
    const indent = line.length - line.trimStart().length;
    while ((stack.at(-1)?.indent ?? -1) >= indent) stack.pop();
    if (trimmed.startsWith('- ')) {
      stack.push({ indent, key: undefined });
      return;
    }
    const key = /^([\w./-]+|'[^']*'|"[^"]*"):(\s|$)/.exec(trimmed)?.[1];
    if (key === undefined) return;
    const path = [...stack.map((entry) => entry.key), key];
    if (path.every((segment): segment is string => segment !== undefined) && isChartOption(path)) {
      const previous = lines[index - 1]?.trim() ?? '';
      if (!previous.startsWith('#')) missing.push(`line ${index + 1}: ${path.join('.')}`);
    }
    stack.push({ indent, key });
  });
  return missing;
}

/** `override` on top of `base` as helm merges values files: maps merge key by key, anything else replaces. */
function coalesce(base: unknown, override: unknown): unknown {
  const isMap = (value: unknown): value is Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isMap(base) || !isMap(override)) return override;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) merged[key] = coalesce(base[key], value);
  return merged;
}

describe('helm/modelgate/values.schema.json', () => {
  it('refuses unknown keys in every object: additionalProperties is false, or a typed map', () => {
    const loose = objectNodes(schema)
      .filter(([, node]) => node.additionalProperties === undefined || node.additionalProperties === true)
      .map(([pointer]) => pointer);
    expect(loose).toEqual([]);
  });

  it('is a valid draft-07 schema without unknown keywords, and accepts every shipped values file', () => {
    const ajv = new Ajv({ strict: true, allErrors: true });
    const validate = ajv.compile(schema);
    const defaults = parse(readRepoFile('helm', 'modelgate', 'values.yaml')) as unknown;
    expect(validate(defaults) ? [] : validate.errors, 'values.yaml').toEqual([]);
    const ciFiles = readdirSync(repoPath('helm', 'modelgate', 'ci')).map((name) => `ci/${name}`);
    expect(ciFiles).toContain('ci/extensions-values.yaml');
    for (const file of ciFiles) {
      // As helm sees a values file: on top of values.yaml.
      const values = coalesce(defaults, parse(readRepoFile('helm', 'modelgate', file)) as unknown);
      expect(validate(values) ? [] : validate.errors, file).toEqual([]);
    }
  });

  it('types snapshot models and endpoints exactly as libs/contracts does (regenerate: UPDATE_CHART_SCHEMA=1)', () => {
    const generated = snapshotItemDefinitions();
    if (process.env.UPDATE_CHART_SCHEMA === '1') {
      Object.assign(schema.definitions, generated);
      writeFileSync(repoPath(...SCHEMA_PATH), `${JSON.stringify(schema, null, 2)}\n`);
    }
    expect(schema.definitions.modelSpec).toEqual(generated.modelSpec);
    expect(schema.definitions.endpointSpec).toEqual(generated.endpointSpec);
  });
});

describe('helm/modelgate/values.yaml', () => {
  it('documents every key with a comment', () => {
    expect(undocumentedKeys(readRepoFile('helm', 'modelgate', 'values.yaml'))).toEqual([]);
  });
});
