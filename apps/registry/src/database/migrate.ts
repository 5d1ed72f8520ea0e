// `npm run migrate [up|down]`: applies pending migrations, or reverts the last one. Reads
// DATABASE_URL and DATABASE_SCHEMA; the Helm chart runs it as a pre-upgrade Job.
import { loadDatabaseConfig } from '../registry.config.js';
import { runMigrations } from './migration-runner.js';

async function main(args: readonly string[]): Promise<void> {
  const direction = args[0] ?? 'up';
  if (direction !== 'up' && direction !== 'down') {
    throw new Error(`usage: npm run migrate [up|down] (got "${direction}")`);
  }
  const config = loadDatabaseConfig();
  const outcome = await runMigrations(config, direction);
  const done = direction === 'up' ? outcome.applied : outcome.reverted;
  const verb = direction === 'up' ? 'applied' : 'reverted';
  process.stdout.write(
    done.length === 0
      ? `schema ${config.DATABASE_SCHEMA}: nothing to do\n`
      : `schema ${config.DATABASE_SCHEMA}: ${verb} ${done.join(', ')}\n`,
  );
}

try {
  await main(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
