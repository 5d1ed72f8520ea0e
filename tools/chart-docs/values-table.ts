import { parse } from 'yaml';

/** One documented value of a chart: a key with a `# --` comment above it in values.yaml. */
export interface ValueDoc {
  /** Dotted path, e.g. `gateway.autoscaling.minReplicas`. */
  key: string;
  /** `string`, `int`, `float`, `bool`, `list`, `object` or `null`, from the default value. */
  type: string;
  /** The default, as compact JSON. */
  defaultJson: string;
  /** The comment's text, continuation lines joined. */
  description: string;
}

/** Marker of a documenting comment (helm-docs' convention): `# -- text`. */
const DOC_MARKER = /^#\s--\s?/;

/**
 * The documented values of a values.yaml, in file order. A `# -- text` comment documents the key
 * on the line right after it; plain `#` lines that follow the marker line continue its text, and
 * any other comment or a blank line ends it. Keys inside list items are examples, not values.
 */
export function documentedValues(valuesYaml: string): ValueDoc[] {
  const defaults = parse(valuesYaml) as unknown;
  const stack: { indent: number; key: string | undefined }[] = [];
  const docs: ValueDoc[] = [];
  let pending: string[] | undefined;
  for (const line of valuesYaml.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') {
      pending = undefined;
      continue;
    }
    if (trimmed.startsWith('#')) {
      if (DOC_MARKER.test(trimmed)) pending = [trimmed.replace(DOC_MARKER, '')];
      else if (pending !== undefined) pending.push(trimmed.replace(/^#\s?/, ''));
      continue;
    }
    const indent = line.length - line.trimStart().length;
    while ((stack.at(-1)?.indent ?? -1) >= indent) stack.pop();
    if (trimmed.startsWith('- ')) {
      stack.push({ indent, key: undefined });
      pending = undefined;
      continue;
    }
    const key = /^([\w./-]+|'[^']*'|"[^"]*"):(\s|$)/.exec(trimmed)?.[1]?.replace(/^['"]|['"]$/g, '');
    if (key === undefined) continue;
    const path = [...stack.map((entry) => entry.key), key];
    if (pending !== undefined && path.every((segment): segment is string => segment !== undefined)) {
      const value = valueAt(defaults, path);
      docs.push({
        key: path.join('.'),
        type: typeOf(value),
        defaultJson: JSON.stringify(value) ?? 'null',
        description: pending.join(' ').trim(),
      });
    }
    pending = undefined;
    stack.push({ indent, key });
  }
  return docs;
}

/** The values as a Markdown table: key, type, default and description. */
export function valuesTable(docs: readonly ValueDoc[]): string {
  const cell = (text: string): string => text.replace(/\|/g, '\\|');
  return [
    '| Key | Type | Default | Description |',
    '| --- | --- | --- | --- |',
    ...docs.map(
      (doc) =>
        `| \`${cell(doc.key)}\` | ${doc.type} | \`${cell(doc.defaultJson)}\` | ${cell(doc.description)} |`,
    ),
  ].join('\n');
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || !(segment in node)) {
      throw new Error(`values.yaml: ${path.join('.')} is documented but not found when parsed`);
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return node;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'number') return Number.isInteger(value) ? 'int' : 'float';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}
