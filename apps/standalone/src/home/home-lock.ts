import { readFile, rm, writeFile } from 'node:fs/promises';

/**
 * Claims the home directory for this process by writing its pid to `path`: the embedded database
 * must never be opened by two processes. A pid file left by a process that is gone is taken over.
 * Returns the release function.
 */
export async function lockHome(path: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      await writeFile(path, `${process.pid}\n`, { flag: 'wx' });
      return () => rm(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number.parseInt(await readFile(path, 'utf8').catch(() => ''), 10);
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && isAlive(holder)) {
      throw new Error(`another modelgate standalone (pid ${holder}) is using ${path}; stop it first`);
    }
    await rm(path, { force: true });
  }
  throw new Error(`could not claim ${path}`);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
