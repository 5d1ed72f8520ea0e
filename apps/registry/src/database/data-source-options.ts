import { type DataSourceOptions } from 'typeorm';
import { type DatabaseConfig } from '../registry.config.js';

/**
 * TypeORM options for the registry's schema: the schema qualifies entity queries, and
 * search_path (a startup parameter) makes the unqualified SQL of migrations and raw queries
 * land in the same schema. Never `synchronize`: the schema comes from migrations/ only.
 */
export function dataSourceOptions(
  config: DatabaseConfig,
  extra: Pick<DataSourceOptions, 'entities' | 'migrations'> = {},
): DataSourceOptions {
  return {
    type: 'postgres',
    url: config.DATABASE_URL,
    schema: config.DATABASE_SCHEMA,
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'modelgate-registry',
    extra: { options: `-c search_path=${config.DATABASE_SCHEMA}` },
    synchronize: false,
    migrationsRun: false,
    installExtensions: false,
    ...extra,
  };
}
