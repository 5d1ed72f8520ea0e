import 'reflect-metadata';
import { createLogger } from '@modelgate/observability';
import { loadRegistryConfig } from './registry.config.js';
import { createRegistryApp } from './registry-app.js';

async function bootstrap(): Promise<void> {
  const config = loadRegistryConfig();
  const logger = createLogger({ app: 'registry', level: config.REGISTRY_LOG_LEVEL });
  const app = await createRegistryApp(config, logger);
  await app.listen(config.REGISTRY_PORT, config.REGISTRY_HOST);
  logger.info(
    {
      port: config.REGISTRY_PORT,
      schema: config.DATABASE_SCHEMA,
      queue: config.REDIS_URL === undefined ? 'in-process' : 'bullmq',
    },
    'registry listening',
  );

  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'registry stopping');
    await app.close();
    process.exit(0);
  };
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => void shutdown(signal));
  }
}

await bootstrap();
