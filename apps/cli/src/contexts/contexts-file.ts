// Reading and writing the contexts file (contexts/cli-contexts.ts holds its rules).
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { UsageError } from '../cli-errors.js';

/** The file's text, or undefined when there is none. */
export function readTextIfAny(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new UsageError(`${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

/** Writes the file whole (readable by its owner only: it may hold tokens), through a rename. */
export async function writeContextsFile(file: string, text: string): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const partial = `${file}.partial`;
  await writeFile(partial, text, { mode: 0o600 });
  await rename(partial, file);
}
