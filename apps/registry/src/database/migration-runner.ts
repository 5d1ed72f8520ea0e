import { DataSource, type MigrationInterface } from 'typeorm';
import { type DatabaseConfig } from '../registry.config.js';
import { dataSourceOptions } from './data-source-options.js';

/** The compiled migrations (`npm run build` emits them), found from this file in src/ or dist/. */
const MIGRATIONS_INDEX = new URL('../../../../migrations/dist/index.js', import.meta.url);

type MigrationClass = new () => MigrationInterface;

/** The migration classes of migrations/, oldest first. */
export async function loadMigrations(): Promise<MigrationClass[]> {
  let loaded: { REGISTRY_MIGRATIONS?: unknown };
  try {
    loaded = (await import(MIGRATIONS_INDEX.href)) as { REGISTRY_MIGRATIONS?: unknown };
  } catch (error) {
    throw new Error(`cannot load ${MIGRATIONS_INDEX.pathname}; run \`npm run build\` first`, {
      cause: error,
    });
  }
  const list = loaded.REGISTRY_MIGRATIONS;
  if (!Array.isArray(list) || !list.every((entry) => typeof entry === 'function')) {
    throw new Error(`${MIGRATIONS_INDEX.pathname} must export REGISTRY_MIGRATIONS, an array of classes`);
  }
  return list as MigrationClass[];
}

/** What a migration command did: the names of the migrations applied or reverted. */
export interface MigrationOutcome {
  applied: string[];
  reverted: string[];
}

/**
 * Applies every pending migration (`up`) or reverts the last applied one (`down`), creating the
 * schema first when it is missing. Each migration runs in its own transaction.
 */
export async function runMigrations(
  config: DatabaseConfig,
  direction: 'up' | 'down',
): Promise<MigrationOutcome> {
  const dataSource = new DataSource(dataSourceOptions(config, { migrations: await loadMigrations() }));
  await dataSource.initialize();
  try {
    await dataSource.query(`CREATE SCHEMA IF NOT EXISTS "${config.DATABASE_SCHEMA}"`);
    if (direction === 'up') {
      const applied = await dataSource.runMigrations({ transaction: 'each' });
      return { applied: applied.map((migration) => migration.name), reverted: [] };
    }
    const before = await executedNames(dataSource);
    await dataSource.undoLastMigration({ transaction: 'each' });
    const after = new Set(await executedNames(dataSource));
    return { applied: [], reverted: before.filter((name) => !after.has(name)) };
  } finally {
    await dataSource.destroy();
  }
}

async function executedNames(dataSource: DataSource): Promise<string[]> {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  const exists = await dataSource.query<{ oid: unknown }[]>(`SELECT to_regclass($1) AS oid`, [table]);
  if (exists[0]?.oid === null || exists[0]?.oid === undefined) return [];
  const rows = await dataSource.query<{ name: string }[]>(`SELECT name FROM ${table} ORDER BY id`);
  return rows.map((row) => row.name);
}
