import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Path of `name` (prometheus or promtool) on PATH; throws saying how to install Debian's
 * prometheus package, which ships both, when there is none: the tests need them and never skip.
 */
export function prometheusPackageBinary(name: 'prometheus' | 'promtool'): string {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  throw new Error(
    `${name} not found on PATH: install Debian's prometheus package (\`apt-get update && apt-get install -y prometheus\`, which gives /usr/bin/prometheus and /usr/bin/promtool), as .ci/run does`,
  );
}

/** Path of promtool on PATH; throws saying how to install it when there is none. */
export function promtoolBinary(): string {
  return prometheusPackageBinary('promtool');
}

/** Runs promtool; returns its exit status and combined output. */
export function runPromtool(args: readonly string[]): { status: number; output: string } {
  const result = spawnSync(promtoolBinary(), args, { encoding: 'utf8' });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, output: result.stdout + result.stderr };
}
