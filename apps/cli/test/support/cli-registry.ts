// A registry in the test's process for the CLI's integration specs, and the CLI run as a process
// against it. Under test/, so it is neither built nor image code.
import { ADMIN_TOKEN, type RunningRegistry } from '@modelgate/testing';
import {
  type Isolation,
  isolate,
  startRegistryInProcess,
} from '../../../registry/test/support/registry-harness.js';
import { type CliRun, runModelgate } from './cli-process.js';

/** A running registry on an isolated schema and key prefix, and the CLI pointed at it. */
export interface CliRegistry {
  isolation: Isolation;
  registry: RunningRegistry;
  /** Runs `modelgate ...args` with the admin token. */
  modelgate(...args: string[]): Promise<CliRun>;
  /** Runs `modelgate ...args` with `token` (none when undefined). */
  modelgateAs(token: string | undefined, ...args: string[]): Promise<CliRun>;
  /** Stops the registry and drops the isolation. */
  stop(): Promise<void>;
}

/** Isolates, then starts a registry in this process with the isolation's env and `env` on top. */
export async function startCliRegistry(env: Record<string, string> = {}): Promise<CliRegistry> {
  const isolation = await isolate();
  let registry: RunningRegistry;
  try {
    registry = await startRegistryInProcess({ ...isolation.env, ...env });
  } catch (error) {
    await isolation.dispose();
    throw error;
  }
  const modelgateAs = (token: string | undefined, ...args: string[]): Promise<CliRun> =>
    runModelgate(args, { registryUrl: registry.url, token });
  return {
    isolation,
    registry,
    modelgate: (...args) => modelgateAs(ADMIN_TOKEN, ...args),
    modelgateAs,
    async stop() {
      await registry.stop();
      await isolation.dispose();
    },
  };
}
