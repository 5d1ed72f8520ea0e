/**
 * (b) What a user would write instead of modelgate: a `node:http` server that calls a
 * transformers.js `pipeline('text-classification')` per request. No batching, no tuning, no web
 * framework: the library's defaults (onnxruntime's intra-op spinning included) are the point of
 * the comparison.
 */
import { createServer } from 'node:http';
import { basename, dirname } from 'node:path';
import { env, pipeline } from '@huggingface/transformers';
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

const server = createServer((request, response) => {
  const answer = (status: number, body: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (request.method === 'GET' && request.url === '/health') return answer(200, { ok: true });
  if (request.method !== 'POST' || request.url !== '/classify') return answer(404, { error: 'not found' });
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let text: unknown;
    try {
      text = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { text?: unknown }).text;
    } catch {
      return answer(400, { error: 'the body is not JSON' });
    }
    if (typeof text !== 'string') return answer(400, { error: 'text must be a string' });
    classify(text).then(
      (predictions) => answer(200, { predictions: [predictions] }),
      (error: unknown) => answer(500, { error: String(error) }),
    );
  });
});
server.keepAliveTimeout = 60_000;
server.listen(config.port, '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void classify.dispose().finally(() => process.exit(0));
  });
}
