// POST /serve/<endpoint> on an image-to-text endpoint, end to end: a real worker running the
// tiny-vit-gpt2 captioner (vision encoder once, decoder with continuous batching) with onnxruntime,
// a real gateway that preprocesses the image and decodes the tokens, and transformers.js'
// image-to-text pipeline on the same image bytes as the reference.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { RawImage, env, pipeline } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type HttpAnswer,
  type RunningGateway,
  type RunningWorker,
  metricValue,
  startServingPair,
  testCard,
  waitFor,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SseEvent, postSse } from './support/sse-client.js';

const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MAX_NEW_TOKENS = 12;
const MODEL = { model: 'captioner', version: '1' };

interface Prediction {
  generated_text: string;
  finish_reason: string;
  prompt_tokens: number;
  generated_tokens: number;
}

const prediction = (answer: HttpAnswer) => (answer.body as { predictions: Prediction[] }).predictions[0]!;

/** A test card (testing's image generator) encoded as JPEG or PNG. */
async function encodedCard(width: number, height: number, seed: number, format: 'jpeg' | 'png') {
  const card = testCard(width, height, seed);
  const image = sharp(Buffer.from(card.data.buffer), { raw: { width, height, channels: 3 } });
  return format === 'jpeg' ? image.jpeg({ quality: 90 }).toBuffer() : image.png().toBuffer();
}

describe('gateway: /serve on an image-to-text endpoint', () => {
  const keyPrefix = `mgtest-caption-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let images: { bytes: Buffer; type: string; caption: string; defaultCaption: string }[];

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [{ name: 'captioner', fixture: 'tiny-vit-gpt2', task: 'image-to-text' }],
      {
        endpoints: [
          {
            name: 'caption',
            task: 'image-to-text',
            routes: [{ model: 'captioner:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'caption-tight',
            task: 'image-to-text',
            routes: [{ model: 'captioner:1', weight: 100, role: 'primary' }],
            preprocessing: { maxImageBytes: 4096, maxImagePixels: 10_000 },
          },
        ],
        gatewayEnv: { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix },
      },
    ));
    const dir = await ensureFixture('tiny-vit-gpt2');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dirname(dir);
    const captioner = await pipeline('image-to-text', 'tiny-vit-gpt2', {
      dtype: 'fp32',
      local_files_only: true,
    });
    const encoded = [
      { bytes: await encodedCard(300, 200, 3, 'jpeg'), type: 'image/jpeg' },
      { bytes: await encodedCard(64, 96, 11, 'png'), type: 'image/png' },
    ];
    images = [];
    for (const { bytes, type } of encoded) {
      const image = await RawImage.fromBlob(new Blob([new Uint8Array(bytes)], { type }));
      const [output] = (await captioner(image, { do_sample: false, max_new_tokens: MAX_NEW_TOKENS })) as {
        generated_text: string;
      }[];
      // The pipeline's own default length (max_length 20, the start token included).
      const [byDefault] = (await captioner(image, { do_sample: false })) as { generated_text: string }[];
      images.push({
        bytes,
        type,
        caption: output?.generated_text ?? '',
        defaultCaption: byDefault?.generated_text ?? '',
      });
    }
  });

  afterAll(async () => {
    await gateway?.stop();
    await worker?.stop();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${keyPrefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** POSTs `bytes` as the raw body with `contentType`. */
  async function postRaw(
    path: string,
    bytes: Uint8Array,
    contentType: string,
    headers: Record<string, string> = {},
  ) {
    const answer = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...headers },
      body: bytes,
    });
    return { status: answer.status, headers: answer.headers, body: await answer.json() };
  }

  /** A refusal: its status and code, a message, and no stack trace; returns the message. */
  function expectRefused(answer: { status: number; body: unknown }, status: number, code: string): string {
    expect(answer.status).toBe(status);
    const { error } = answer.body as { error: { code: string; message: string; request_id: string } };
    expect(error.code).toBe(code);
    expect(error.request_id).toMatch(/\S/);
    expect(error.message).not.toMatch(/\n\s+at /);
    return error.message;
  }

  async function readAll(body: unknown, headers: Record<string, string> = {}): Promise<SseEvent[]> {
    const stream = await postSse(`${gateway.url}/serve/caption`, body, headers);
    expect(stream.status).toBe(200);
    expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
    const events: SseEvent[] = [];
    for await (const event of stream.events) events.push(event);
    return events;
  }

  it("captions a JPEG and a PNG as transformers.js' image-to-text pipeline does, greedy", async () => {
    expect(images[0]?.caption).not.toBe(images[1]?.caption);
    for (const { bytes, caption } of images) {
      const answer = await gateway.post('/serve/caption', {
        image: bytes.toString('base64'),
        parameters: { max_new_tokens: MAX_NEW_TOKENS },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({
        endpoint: 'caption',
        model: 'captioner',
        version: '1',
        route: 'primary',
      });
      expect(prediction(answer)).toEqual({
        generated_text: caption,
        finish_reason: 'length',
        prompt_tokens: 1,
        generated_tokens: MAX_NEW_TOKENS,
      });
      expect(answer.headers.get('x-modelgate-model')).toBe('captioner:1');
      expect(answer.headers.get('server-timing')).toMatch(/queue;dur=.*ttft;dur=.*total;dur=/);
    }
  });

  it('gives the same caption for base64, a data URL and the raw body', async () => {
    const [{ bytes, type, caption }] = images as [(typeof images)[0]];
    const parameters = { max_new_tokens: MAX_NEW_TOKENS };
    const dataUrl = await gateway.post('/serve/caption', {
      image: `data:${type};base64,${bytes.toString('base64')}`,
      parameters,
    });
    expect(prediction(dataUrl).generated_text).toBe(caption);
    // A raw body takes the defaults: greedy, and the model's length as transformers.js reads it
    // (max_length 20 with the start token: 19 new tokens), so the pipeline's default caption.
    const raw = await postRaw('/serve/caption', bytes, type);
    expect(raw.status).toBe(200);
    expect(prediction(raw)).toMatchObject({
      generated_text: images[0]?.defaultCaption,
      prompt_tokens: 1,
      generated_tokens: 19,
    });
    expect(images[0]?.defaultCaption.startsWith(caption)).toBe(true);
  });

  it('streams deltas that add up to the caption, then event: end (JSON stream: true, or a raw image with Accept)', async () => {
    const [{ bytes, type, caption }] = images as [(typeof images)[0]];
    const parameters = { max_new_tokens: MAX_NEW_TOKENS };
    const viaJson = await readAll({ image: bytes.toString('base64'), parameters, stream: true });
    const viaRaw = await readAll(new Uint8Array(bytes), { 'content-type': type });
    for (const events of [viaJson, viaRaw]) {
      const last = events.at(-1)!;
      expect(last.event).toBe('end');
      const deltas = events.slice(0, -1);
      expect(deltas.every((event) => event.event === 'message')).toBe(true);
      const text = deltas.map((event) => (JSON.parse(event.data) as { text: string }).text).join('');
      const end = JSON.parse(last.data) as Prediction;
      expect(text).toBe(end.generated_text);
      expect(end.prompt_tokens).toBe(1);
    }
    expect(JSON.parse(viaJson.at(-1)!.data)).toMatchObject({
      generated_text: caption,
      finish_reason: 'length',
    });
  });

  it('ends a caption at a stop string, and samples reproducibly with a seed', async () => {
    const [{ bytes, caption }] = images as [(typeof images)[0]];
    const image = bytes.toString('base64');
    const words = caption.split(' ').filter((word) => word.length > 0);
    const stop = words[Math.min(2, words.length - 1)]!;
    const stopped = await gateway.post('/serve/caption', {
      image,
      parameters: { max_new_tokens: MAX_NEW_TOKENS, stop: [stop] },
    });
    expect(prediction(stopped)).toMatchObject({
      generated_text: caption.slice(0, caption.indexOf(stop)).trim(),
      finish_reason: 'stop',
    });
    const sampled = { max_new_tokens: 8, do_sample: true, temperature: 1.5, seed: 42 };
    const first = await gateway.post('/serve/caption', { image, parameters: sampled });
    const second = await gateway.post('/serve/caption', { image, parameters: sampled });
    expect(first.status).toBe(200);
    expect(prediction(second).generated_text).toBe(prediction(first).generated_text);
  });

  it('refuses a corrupt image 400, an oversized one 413, a GIF 415 and return_full_text 400', async () => {
    const [{ bytes }] = images as [(typeof images)[0]];
    const truncated = Buffer.concat([
      bytes.subarray(0, Math.floor(bytes.length / 2)),
      Buffer.alloc(64, 0x5a),
    ]);
    expect(
      expectRefused(await postRaw('/serve/caption', truncated, 'image/jpeg'), 400, 'INVALID_ARGUMENT'),
    ).toMatch(/^image: /);
    expect(
      expectRefused(await postRaw('/serve/caption-tight', bytes, 'image/jpeg'), 413, 'PAYLOAD_TOO_LARGE'),
    ).toContain('over the limit of 4096');
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a33' } })
      .gif()
      .toBuffer();
    expectRefused(await postRaw('/serve/caption', gif, 'image/gif'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    const fullText = await gateway.post('/serve/caption', {
      image: bytes.toString('base64'),
      parameters: { return_full_text: true },
    });
    expect(expectRefused(fullText, 400, 'INVALID_ARGUMENT')).toMatch(/return_full_text/);
    expectRefused(await gateway.post('/serve/caption', { text: 'a cat' }), 400, 'INVALID_ARGUMENT');
    const long = await gateway.post('/serve/caption', {
      image: bytes.toString('base64'),
      parameters: { max_new_tokens: 500 },
    });
    expectRefused(long, 422, 'TOKEN_LIMIT_EXCEEDED');
  });

  it("refuses text routes on the captioner with a clear 400 (Triton's generate, OpenAI's completions)", async () => {
    const triton = await gateway.post('/v2/models/captioner/generate', { text_input: 'a cat' });
    expect(triton.status).toBe(400);
    expect(JSON.stringify(triton.body)).toMatch(/image-to-text/);
    const openai = await gateway.post('/v1/completions', { model: 'caption', prompt: 'a cat' });
    expect(openai.status).toBe(400);
    expect(JSON.stringify(openai.body)).toMatch(/image-to-text/);
  });

  it('answers an asynchronous raw image job (Prefer: respond-async) as the synchronous path', async () => {
    const [{ bytes, type }] = images as [(typeof images)[0]];
    const accepted = await postRaw('/serve/caption', bytes, type, { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    const { status_url: statusUrl } = accepted.body as { status_url: string };
    let view: { status: string; result?: { predictions: Prediction[] } } = { status: 'queued' };
    await waitFor(async () => {
      view = (await (await fetch(`${gateway.url}${statusUrl}`)).json()) as typeof view;
      return view.status === 'succeeded' || view.status === 'failed';
    });
    expect(view.status).toBe('succeeded');
    const direct = await postRaw('/serve/caption', bytes, type);
    expect(view.result?.predictions).toEqual((direct.body as { predictions: unknown[] }).predictions);
    const streamed = await gateway.post(
      '/serve/caption',
      { image: bytes.toString('base64'), stream: true },
      { prefer: 'respond-async' },
    );
    expectRefused(streamed, 400, 'INVALID_ARGUMENT');
    // A raw image asks for a stream with its Accept header, which a job cannot honour either.
    const rawStream = await postRaw('/serve/caption', bytes, type, {
      prefer: 'respond-async',
      accept: 'text/event-stream',
    });
    expect(expectRefused(rawStream, 400, 'INVALID_ARGUMENT')).toContain('drop Accept: text/event-stream');
  });

  it('reports the generation metrics of the endpoint and model', async () => {
    const text = await (await fetch(`${gateway.url}/metrics`)).text();
    const labels = { serving_endpoint: 'caption', ...MODEL };
    expect(
      metricValue(text, 'modelgate_generation_time_to_first_token_seconds_count', labels),
    ).toBeGreaterThan(0);
    expect(metricValue(text, 'modelgate_generated_tokens_total', labels)).toBeGreaterThan(0);
    expect(metricValue(text, 'modelgate_requests_total', { ...labels, code: '200' })).toBeGreaterThan(0);
  });
});
