/**
 * (b) What a user would write instead of modelgate: one Fastify process that calls a
 * transformers.js `pipeline('text-classification')` per request. No batching, no tuning: the
 * library's defaults are the point of the comparison.
 */
import { basename, dirname } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
import Fastify from 'fastify';
import { readChildConfig } from '../child-process.js';

/** Settings from the parent. */
export interface NaiveServerConfig {
  fixtureDir: string;
  port: number;
}

const config = readChildConfig<NaiveServerConfig>();
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = dirname(config.fixtureDir);
const classify = await pipeline('text-classification', basename(config.fixtureDir), {
  dtype: 'fp32',
  local_files_only: true,
});

const app = Fastify({ logger: false });
app.get('/health', () => ({ ok: true }));
app.post<{ Body: { text?: unknown } }>('/classify', async (request, reply) => {
  const text = request.body?.text;
  if (typeof text !== 'string') return reply.code(400).send({ error: 'text must be a string' });
  return { predictions: [await classify(text)] };
});
await app.listen({ port: config.port, host: '127.0.0.1' });

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    void app
      .close()
      .then(() => classify.dispose())
      .finally(() => process.exit(0));
  });
}
