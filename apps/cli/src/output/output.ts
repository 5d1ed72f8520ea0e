import { stringify as stringifyYaml } from 'yaml';

/** Where a command's result and its notes go. */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/** `-o`: a human table (`wide` adds columns to lists), or the API's answer as JSON or YAML. */
export const OUTPUT_FORMATS = ['table', 'wide', 'json', 'yaml'] as const;

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
  ) {}

  /** True for -o json and -o yaml: stdout holds the API's answer only. */
  get json(): boolean {
    return this.format === 'json' || this.format === 'yaml';
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
