/**
 * `-o jsonpath=TEMPLATE`: kubectl's JSONPath templates over a command's API answer. Text outside
 * braces is printed as is; `{.a.b}`, `{.list[0]}`, `{.list[*].name}`, `{['key']}` print what the
 * path selects (several results joined by spaces; strings bare, other values as JSON); `{"\n"}`
 * prints a string literal; `{range .list[*]}…{end}` repeats its body for each element. The root
 * is the answer itself (`{[*].name}` for a list), `$` optional. Pure: no I/O.
 */
import { UsageError } from '../cli-errors.js';

type Step = { key: string } | { index: number } | { all: true };

type Node =
  | { text: string }
  | { literal: string }
  | { path: Step[]; source: string }
  | { range: Step[]; source: string; body: Node[] };

function fail(template: string, why: string): never {
  throw new UsageError(`-o jsonpath=${template}: ${why}`);
}

/** The steps of a path such as `.routes[0].model` or `$['a'][*]`. */
function parsePath(path: string, template: string): Step[] {
  const steps: Step[] = [];
  let at = path.startsWith('$') ? 1 : 0;
  while (at < path.length) {
    const char = path[at];
    if (char === '.') {
      const match = /^\.([A-Za-z_][A-Za-z0-9_-]*|\*)/.exec(path.slice(at));
      if (!match?.[1]) fail(template, `'${path}': a name must follow '.' at ${at + 1}`);
      steps.push(match[1] === '*' ? { all: true } : { key: match[1] });
      at += match[0].length;
    } else if (char === '[') {
      const match = /^\[(\*|-?[0-9]+|'[^']*'|"[^"]*")\]/.exec(path.slice(at));
      if (!match?.[1]) fail(template, `'${path}': expected [n], [*] or ['key'] at ${at + 1}`);
      const inner = match[1];
      steps.push(
        inner === '*'
          ? { all: true }
          : inner.startsWith("'") || inner.startsWith('"')
            ? { key: inner.slice(1, -1) }
            : { index: Number(inner) },
      );
      at += match[0].length;
    } else {
      fail(template, `'${path}': unexpected '${char ?? ''}' at ${at + 1} (paths start with . or [)`);
    }
  }
  return steps;
}

/** The template as text, paths, literals and ranges. */
function parseTemplate(template: string): Node[] {
  const root: Node[] = [];
  const stack: { body: Node[]; open?: Extract<Node, { range: Step[] }> }[] = [{ body: root }];
  let at = 0;
  while (at < template.length) {
    const open = template.indexOf('{', at);
    const body = stack[stack.length - 1]?.body ?? root;
    if (open === -1) {
      body.push({ text: template.slice(at) });
      break;
    }
    if (open > at) body.push({ text: template.slice(at, open) });
    const close = template.indexOf('}', open);
    if (close === -1) fail(template, `'{' at ${open + 1} is never closed`);
    const expression = template.slice(open + 1, close).trim();
    at = close + 1;
    if (/^".*"$/s.test(expression)) {
      body.push({ literal: JSON.parse(expression) as string });
    } else if (expression === 'end') {
      if (stack.length === 1) fail(template, '{end} without {range}');
      stack.pop();
    } else if (expression.startsWith('range ')) {
      const source = expression.slice('range '.length).trim();
      const range = { range: parsePath(source, template), source, body: [] as Node[] };
      body.push(range);
      stack.push({ body: range.body, open: range });
    } else if (expression === '' || expression === '$') {
      body.push({ path: [], source: expression });
    } else {
      body.push({ path: parsePath(expression, template), source: expression });
    }
  }
  if (stack.length > 1) fail(template, '{range} without {end}');
  return root;
}

/** Every value `steps` selects from `value` (a missing key or index selects nothing). */
function select(value: unknown, steps: readonly Step[]): unknown[] {
  let current: unknown[] = [value];
  for (const step of steps) {
    const next: unknown[] = [];
    for (const item of current) {
      if ('all' in step) {
        if (Array.isArray(item)) next.push(...(item as unknown[]));
        else if (item !== null && typeof item === 'object')
          next.push(...Object.values(item as Record<string, unknown>));
      } else if ('index' in step) {
        if (Array.isArray(item)) {
          const element: unknown = item.at(step.index);
          if (element !== undefined) next.push(element);
        }
      } else if (item !== null && typeof item === 'object' && step.key in item) {
        next.push((item as Record<string, unknown>)[step.key]);
      }
    }
    current = next;
  }
  return current;
}

function print(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function render(nodes: readonly Node[], value: unknown, template: string): string {
  return nodes
    .map((node) => {
      if ('text' in node) return node.text;
      if ('literal' in node) return node.literal;
      const selected = select(value, 'range' in node ? node.range : node.path);
      if ('range' in node) return selected.map((item) => render(node.body, item, template)).join('');
      if (selected.length === 0) fail(template, `${node.source} selects nothing in the answer`);
      return selected.map(print).join(' ');
    })
    .join('');
}

/** Checks `template` (a usage error before any call when it cannot be read). */
export function checkJsonPath(template: string): void {
  if (template.trim() === '') throw new UsageError('-o jsonpath= needs a template, e.g. -o jsonpath={.name}');
  parseTemplate(template);
}

/** `template` applied to `value`, as kubectl prints it (no newline added). */
export function applyJsonPath(template: string, value: unknown): string {
  return render(parseTemplate(template), value, template);
}
