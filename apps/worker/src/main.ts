import { createLogger } from '@modelgate/observability';
import { loadWorkerConfig } from './worker.config.js';
import { startWorkerApp } from './worker-app.js';

const config = loadWorkerConfig();
const logger = createLogger({ app: 'worker', level: config.WORKER_LOG_LEVEL });
const worker = await startWorkerApp(config, logger);
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => void worker.stop(signal).then(() => process.exit(0)));
}
