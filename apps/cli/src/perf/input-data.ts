/**
 * `perf --input-data FILE`: the request bodies perf cycles through instead of its built-in
 * sentences, as perf_analyzer's --input-data gives its own. The file holds a JSON array of
 * /serve bodies (`[{"text": "…"}, {"question": "…", "context": "…"}]`), or JSON Lines, one body
 * per line. Every body must be a JSON object; anything else is a usage error naming the entry.
 */
import { readFile } from 'node:fs/promises';
import { UsageError } from '../cli-errors.js';

/** The bodies of `text` (the file's contents), serialized once for the load loops. */
export function parseInputData(text: string, file: string): string[] {
  const trimmed = text.trim();
  if (trimmed === '') throw new UsageError(`--input-data ${file}: the file is empty`);
  let bodies: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      bodies = JSON.parse(trimmed) as unknown[];
    } catch (error) {
      throw new UsageError(`--input-data ${file}: not JSON (${(error as Error).message})`);
    }
  } else {
    bodies = trimmed
      .split('\n')
      .map((line, index) => ({ line: line.trim(), index }))
      .filter(({ line }) => line !== '')
      .map(({ line, index }) => {
        try {
          return JSON.parse(line) as unknown;
        } catch (error) {
          throw new UsageError(
            `--input-data ${file}: line ${index + 1} is not JSON (${(error as Error).message})`,
          );
        }
      });
  }
  if (bodies.length === 0) throw new UsageError(`--input-data ${file}: no request body in it`);
  return bodies.map((body, index) => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      throw new UsageError(
        `--input-data ${file}: entry ${index + 1} is not a JSON object (a /serve body such as {"text": "…"})`,
      );
    }
    return JSON.stringify(body);
  });
}

/** Reads and checks the file; a usage error naming it when it cannot be read. */
export async function readInputData(file: string): Promise<string[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(
      `--input-data ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  return parseInputData(text, file);
}
