import { stringify as stringifyYaml } from 'yaml';
import { applyJsonPath } from './jsonpath.js';

/** Where a command's result and its notes go. */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * `-o`: a human table (`wide` adds columns to lists), the API's answer as JSON or YAML, the
 * names of the resources it holds, one per line (`name`: `sst2:1` for a model version), or what a
 * JSONPath template selects of it (`jsonpath=TEMPLATE`, output/jsonpath.ts).
 */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml', 'name', 'jsonpath'] as const;

/** One of OUTPUT_FORMATS. */
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/**
 * A command's output. With `-o json` (or `--json`) or `-o yaml`, stdout carries the API's answer
 * exactly and nothing else, so a script can parse it; otherwise a human rendering, with more
 * columns under `-o wide`. Progress and notes always go to stderr.
 */
export class Output {
  constructor(
    readonly format: OutputFormat,
    readonly streams: OutputStreams,
    /** false with `--no-headers`: list tables print their rows alone. */
    readonly headers = true,
    /** `-o jsonpath=TEMPLATE`: the template. */
    readonly template = '',
  ) {}

  /** True for -o json, yaml, name and jsonpath: stdout holds the API's answer (or part of it) only. */
  get json(): boolean {
    return this.format !== 'table' && this.format !== 'wide';
  }

  /**
   * Prints a result: `apiJson` as JSON or YAML (nothing when the API answered no body), else
   * `human(wide)`.
   */
  result(apiJson: unknown, human: (wide: boolean) => string): void {
    if (this.format === 'json' || this.format === 'yaml') {
      if (apiJson === undefined) return;
      const text = this.format === 'json' ? `${JSON.stringify(apiJson, null, 2)}\n` : stringifyYaml(apiJson);
      this.streams.stdout.write(text);
      return;
    }
    if (this.format === 'jsonpath') {
      if (apiJson !== undefined) this.streams.stdout.write(applyJsonPath(this.template, apiJson));
      return;
    }
    if (this.format === 'name') {
      const names = resourceNames(apiJson);
      if (names.length > 0) this.streams.stdout.write(`${names.join('\n')}\n`);
      return;
    }
    const text = human(this.format === 'wide');
    if (text !== '') this.streams.stdout.write(`${text}\n`);
  }

  /** A line for the person at the terminal (progress, hints): stderr, never stdout. */
  note(line: string): void {
    this.streams.stderr.write(`${line}\n`);
  }

  /** Whether stderr is a terminal (spinners and line rewriting only then). */
  get interactive(): boolean {
    return this.streams.stderr.isTTY === true;
  }
}

/**
 * The names in an API answer (one resource or a list): `name:version` for a model version, else
 * `name`. Only commands whose answers are named resources take `-o name` (cli-context.ts).
 */
export function resourceNames(apiJson: unknown): string[] {
  if (apiJson === undefined) return [];
  const items: unknown[] = Array.isArray(apiJson) ? apiJson : [apiJson];
  return items.map((item) => {
    const { name, version } = (item ?? {}) as { name?: unknown; version?: unknown };
    if (typeof name !== 'string') throw new TypeError('-o name: the answer holds a resource without a name');
    return typeof version === 'string' || typeof version === 'number' ? `${name}:${version}` : name;
  });
}
