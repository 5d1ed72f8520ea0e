// The registry's migrations by name, in the order they apply (migrations/index.ts), as the
// migration tests expect them, and moving a test database between them.
import { expect } from 'vitest';
import { runMigrations } from '../../src/database/migration-runner.js';
import { type RegistryConfig } from '../../src/registry.config.js';

export const ALL_MIGRATIONS = [
  'InitialSchema1763683200000',
  'ModelVersionPolicies1795348800000',
  'ModelSourcesAndExternalData1795352400000',
  'RolloutProgress1795356000000',
  'TextTasks1795359600000',
  'TextGenerationTask1795363200000',
  'ImageClassificationTask1795366800000',
  'ImageToTextTask1795370400000',
  'OptionsThatNeverApplied1795374000000',
  'DecodersWithoutPositionIds1795377600000',
  'InertQueueDelays1795381200000',
  'EndpointGenerationDefaults1795384800000',
  'ImplicitMaxBatchSize1795388400000',
];

/** Reverts every migration after `name`, newest first, so that `name` is the last applied. */
export async function revertAfter(config: RegistryConfig, name: string): Promise<void> {
  for (let n = ALL_MIGRATIONS.length - 1; n > ALL_MIGRATIONS.indexOf(name); n -= 1) {
    expect((await runMigrations(config, 'down')).reverted).toEqual([ALL_MIGRATIONS[n]]);
  }
}

/** The migrations from `name` on, as `up` applies them after reverting through `name`. */
export const migrationsFrom = (name: string): string[] => ALL_MIGRATIONS.slice(ALL_MIGRATIONS.indexOf(name));
