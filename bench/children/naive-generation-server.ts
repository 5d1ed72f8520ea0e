/**
 * The generation suite's naive server: what a user would write instead of modelgate to serve a
 * decoder, a `node:http` server around transformers.js' `pipeline('text-generation')`, one request
 * at a time (each waits for the one before: a generate call owns its model's session), streaming
 * each new token as a Server-Sent Event through the library's TextStreamer. It speaks the events
 * of modelgate's streaming /serve (a delta per token, then `event: end` with generated_tokens and
 * prompt_tokens), so the same load generator (sse-load.ts) measures both. Library defaults
 * otherwise: that is the point of the comparison.
 */
import { createServer, type ServerResponse } from 'node:http';
import { basename, dirname } from 'node:path';
import { TextStreamer, env, pipeline } from '@huggingface/transformers';
import { readChildConfig } from '../child-process.js';

/** Settings from the parent. */
export interface NaiveGenerationServerConfig {
  fixtureDir: string;
  port: number;
}

interface Body {
  text?: unknown;
  parameters?: { max_new_tokens?: unknown };
}

const config = readChildConfig<NaiveGenerationServerConfig>();
env.allowRemoteModels = false;
env.allowLocalModels = true;
env.localModelPath = dirname(config.fixtureDir);
const generator = await pipeline('text-generation', basename(config.fixtureDir), {
  dtype: 'fp32',
  local_files_only: true,
});

/** The previous request's generation: the next one starts after it. */
let queue: Promise<void> = Promise.resolve();

async function generate(text: string, maxNewTokens: number, response: ServerResponse): Promise<void> {
  const inputs = generator.tokenizer(text, { add_special_tokens: false });
  const promptTokens = (inputs.input_ids as { dims: number[] }).dims.at(-1) ?? 0;
  let generated = 0;
  const streamer = new TextStreamer(generator.tokenizer, {
    skip_prompt: true,
    callback_function: () => undefined,
    token_callback_function: (tokens: bigint[]) => {
      generated += tokens.length;
      response.write(`data: ${JSON.stringify({ token_ids: tokens.map(Number) })}\n\n`);
    },
  });
  await generator.model.generate({ ...inputs, max_new_tokens: maxNewTokens, do_sample: false, streamer });
  response.end(
    `event: end\ndata: ${JSON.stringify({ generated_tokens: generated, prompt_tokens: promptTokens })}\n\n`,
  );
}

const server = createServer((request, response) => {
  const answer = (status: number, body: unknown): void => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  if (request.method === 'GET' && request.url === '/health') return answer(200, { ok: true });
  if (request.method !== 'POST' || request.url !== '/generate') return answer(404, { error: 'not found' });
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    let body: Body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
    } catch {
      return answer(400, { error: 'the body is not JSON' });
    }
    const maxNewTokens = Number(body.parameters?.max_new_tokens ?? 20);
    if (typeof body.text !== 'string' || !Number.isInteger(maxNewTokens) || maxNewTokens < 1) {
      return answer(400, { error: 'text must be a string and parameters.max_new_tokens a positive integer' });
    }
    const text = body.text;
    queue = queue.then(async () => {
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      await generate(text, maxNewTokens, response).catch((error: unknown) => {
        response.end(`event: error\ndata: ${JSON.stringify({ error: String(error) })}\n\n`);
      });
    });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(config.port, '127.0.0.1');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    server.close();
    void generator.dispose().finally(() => process.exit(0));
  });
}
