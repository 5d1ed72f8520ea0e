import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GATEWAY_ENV_KEYS } from '../../../../apps/gateway/src/gateway.config.js';
import { REGISTRY_ENV_KEYS } from '../../../../apps/registry/src/registry.config.js';
import { WORKER_ENV_KEYS } from '../../../../apps/worker/src/worker.config.js';

/** The repository root. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** Absolute path of a repository-relative path. */
export function repoPath(...segments: string[]): string {
  return path.join(REPO_ROOT, ...segments);
}

/** Reads a repository file as UTF-8. */
export function readRepoFile(...segments: string[]): string {
  return readFileSync(repoPath(...segments), 'utf8');
}

/** The apps whose environment the deployment files set. */
export type AppName = 'gateway' | 'worker' | 'registry';

/** The env var names each app's zod config schema reads (its only reader of process.env). */
export const APP_ENV_KEYS: Readonly<Record<AppName, ReadonlySet<string>>> = {
  gateway: new Set(GATEWAY_ENV_KEYS),
  worker: new Set(WORKER_ENV_KEYS),
  registry: new Set(REGISTRY_ENV_KEYS),
};

/** Workspace directories (relative, e.g. `libs/contracts`) from the root package.json's globs. */
export function workspaceDirs(): string[] {
  const manifest = JSON.parse(readRepoFile('package.json')) as { workspaces: string[] };
  return manifest.workspaces.flatMap((pattern) => {
    if (!pattern.endsWith('/*')) return [pattern];
    const parent = pattern.slice(0, -2);
    return readdirSync(repoPath(parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(repoPath(parent, entry.name, 'package.json')))
      .map((entry) => `${parent}/${entry.name}`)
      .sort();
  });
}

/**
 * The source file a path that `node` runs in an image compiles from: `apps/x/dist/a/b.js` →
 * `apps/x/src/a/b.ts` (or `migrations/dist/i.js` → `migrations/i.ts`, whose rootDir is the
 * folder itself); a path outside any dist/ must exist as it is. Returns the first candidate
 * that exists, or undefined.
 */
export function sourceOfBuiltFile(builtPath: string): string | undefined {
  const match = /^(.*?)\/dist\/(.+)\.js$/.exec(builtPath);
  const candidates = match ? [`${match[1]}/src/${match[2]}.ts`, `${match[1]}/${match[2]}.ts`] : [builtPath];
  return candidates.find((candidate) => existsSync(repoPath(candidate)));
}
