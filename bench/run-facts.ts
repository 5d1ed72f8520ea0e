/** Facts a results file records about the run: what was measured, on what. */
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT } from './child-process.js';

/** The measured tree's commit (read-only git calls), or undefined outside a checkout. */
export function gitCommit(): string | undefined {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
    const dirty = git('status', '--porcelain', '--untracked-files=no', '--', 'apps', 'libs') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted changes in apps/ or libs/' : ''}`;
  } catch {
    return undefined;
  }
}

/** The installed onnxruntime-node version. */
export async function onnxruntimeVersion(): Promise<string> {
  const manifest = join(REPO_ROOT, 'node_modules', 'onnxruntime-node', 'package.json');
  return (JSON.parse(await readFile(manifest, 'utf8')) as { version: string }).version;
}
