/** Where a command's result and its notes go. */
export interface OutputStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
}

/**
 * A command's output. With `--json`, stdout carries the API's JSON exactly and nothing else, so a
 * script can `JSON.parse` it; without, a human rendering. Progress and notes always go to stderr.
 */
export class Output {
  constructor(
    readonly json: boolean,
    readonly streams: OutputStreams,
  ) {}

  /** Prints a result: `apiJson` with --json (nothing when the API answered no body), else `human()`. */
  result(apiJson: unknown, human: () => string): void {
    if (this.json) {
      if (apiJson !== undefined) this.streams.stdout.write(`${JSON.stringify(apiJson, null, 2)}\n`);
      return;
    }
    const text = human();
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
