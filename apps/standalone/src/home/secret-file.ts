import { chmod, readFile, writeFile } from 'node:fs/promises';
import { generateToken } from '@modelgate/contracts';

/** The secret stored in `path` (trimmed), or undefined when there is no such file. */
export async function readSecret(path: string): Promise<string | undefined> {
  try {
    const value = (await readFile(path, 'utf8')).trim();
    return value.length > 0 ? value : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Writes `secret` to `path`, readable by this user only (mode 0600). */
export async function writeSecret(path: string, secret: string): Promise<void> {
  await writeFile(path, `${secret}\n`, { mode: 0o600 });
  await chmod(path, 0o600); // mode only applies to a new file
}

/** The secret in `path`; a generated one is written there first when there is none. */
export async function readOrCreateSecret(path: string): Promise<{ value: string; created: boolean }> {
  const existing = await readSecret(path);
  if (existing !== undefined) return { value: existing, created: false };
  const value = generateToken();
  await writeSecret(path, value);
  return { value, created: true };
}
