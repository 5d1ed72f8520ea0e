// image-classification through a real gateway and worker (gRPC, onnxruntime, the tiny-vit fixture):
// the gateway decodes and preprocesses the image from the model's preprocessor_config.json, the
// worker runs the ViT, the gateway answers labels as text-classification does. The reference is
// transformers.js' image-classification pipeline on the same bytes.
import { randomBytes } from 'node:crypto';
import { dirname } from 'node:path';
import { RawImage, env, pipeline } from '@huggingface/transformers';
import { ensureFixture } from '@modelgate/fixtures';
import {
  type RunningGateway,
  type RunningWorker,
  metricValue,
  pixelInferRequest,
  pixelRows,
  startServingPair,
  waitFor,
} from '@modelgate/testing';
import { Redis } from 'ioredis';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const HOLD = 'x-modelgate-test-hold-ms';
const REDIS_URL = process.env.MODELGATE_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LABELS = 5;
const MODEL = { model: 'vit', version: '1' };

interface ClassScore {
  label: string;
  score: number;
}

interface ErrorAnswer {
  error: { code: string; message: string; request_id: string };
}

/** An RGB card of gradients and a seeded pattern (not 224×224, so the processor resizes), as JPEG. */
async function testJpeg(width: number, height: number, seed: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      data[offset] = Math.floor((x * 255) / width);
      data[offset + 1] = Math.floor((y * 255) / height);
      data[offset + 2] = ((x * seed + y * 7) % 64) * 4;
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 90 })
    .toBuffer();
}

/** A 1×1 24-bit BMP, written by hand (sharp does not write BMP). */
function tinyBmp(): Buffer {
  const bmp = Buffer.alloc(58);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(58, 2); // file size
  bmp.writeUInt32LE(54, 10); // pixel data offset
  bmp.writeUInt32LE(40, 14); // BITMAPINFOHEADER
  bmp.writeInt32LE(1, 18); // width
  bmp.writeInt32LE(1, 22); // height
  bmp.writeUInt16LE(1, 26); // planes
  bmp.writeUInt16LE(24, 28); // bits per pixel
  bmp.writeUInt32LE(4, 34); // pixel data size (one padded row)
  bmp.set([40, 120, 200], 54);
  return bmp;
}

describe('gateway: image-classification endpoints', () => {
  const keyPrefix = `mgtest-image-${randomBytes(4).toString('hex')}`;
  let worker: RunningWorker;
  let gateway: RunningGateway;
  let jpeg: Buffer;
  let reference: ClassScore[];

  beforeAll(async () => {
    ({ worker, gateway } = await startServingPair(
      [
        {
          name: 'vit',
          fixture: 'tiny-vit',
          task: 'image-classification',
          batching: { maxBatchSize: 16, maxQueueDelayMicros: 2000 },
        },
        { name: 'bert', fixture: 'tiny-bert-sst2' },
      ],
      {
        endpoints: [
          {
            name: 'vision',
            task: 'image-classification',
            routes: [{ model: 'vit:1', weight: 100, role: 'primary' }],
          },
          {
            name: 'vision-tight',
            task: 'image-classification',
            routes: [{ model: 'vit:1', weight: 100, role: 'primary' }],
            preprocessing: { maxImageBytes: 4096, maxImagePixels: 10_000 },
            postprocessing: { topK: 2 },
          },
          {
            name: 'sentiment',
            task: 'text-classification',
            routes: [{ model: 'bert:1', weight: 100, role: 'primary' }],
          },
          // Raw: answers as its model does, an image model here.
          { name: 'vision-raw', task: 'raw', routes: [{ model: 'vit:1', weight: 100, role: 'primary' }] },
          { name: 'text-raw', task: 'raw', routes: [{ model: 'bert:1', weight: 100, role: 'primary' }] },
        ],
        gatewayEnv: { REDIS_URL, REDIS_KEY_PREFIX: keyPrefix },
      },
    ));
    jpeg = await testJpeg(300, 200, 3);
    const dir = await ensureFixture('tiny-vit');
    env.allowRemoteModels = false;
    env.allowLocalModels = true;
    env.localModelPath = dirname(dir);
    const classify = await pipeline('image-classification', 'tiny-vit', {
      dtype: 'fp32',
      local_files_only: true,
    });
    const image = await RawImage.fromBlob(new Blob([new Uint8Array(jpeg)]));
    reference = await classify(image, { top_k: LABELS });
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
  ): Promise<{ status: number; body: unknown }> {
    const answer = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': contentType, ...headers },
      body: bytes,
    });
    return { status: answer.status, body: await answer.json() };
  }

  function expectScoresClose(got: ClassScore[] | undefined, expected: ClassScore[]): void {
    expect(got?.map((entry) => entry.label)).toEqual(expected.map((entry) => entry.label));
    got?.forEach((entry, index) => {
      expect(Math.abs(entry.score - (expected[index]?.score ?? NaN))).toBeLessThan(1e-5);
    });
  }

  /** A refusal: its status and code, a message, and no stack trace. */
  function expectRefused(answer: { status: number; body: unknown }, status: number, code: string): string {
    expect(answer.status).toBe(status);
    const { error } = answer.body as ErrorAnswer;
    expect(error.code).toBe(code);
    expect(error.request_id).toMatch(/\S/);
    expect(error.message).not.toMatch(/\n\s+at /);
    return error.message;
  }

  it('answers a JPEG as base64, as a data URL and as a raw body alike, equal to transformers.js', async () => {
    const base64 = jpeg.toString('base64');
    const asBase64 = await gateway.post('/serve/vision', { image: base64, parameters: { top_k: LABELS } });
    const asDataUrl = await gateway.post('/serve/vision', {
      image: `data:image/jpeg;base64,${base64}`,
      parameters: { top_k: LABELS },
    });
    const asRaw = await postRaw('/serve/vision', jpeg, 'image/jpeg');
    for (const answer of [asBase64, asDataUrl]) expect(answer.status).toBe(200);
    expect(asRaw.status).toBe(200);
    const [viaBase64] = (asBase64.body as { predictions: ClassScore[][] }).predictions;
    expectScoresClose(viaBase64, reference);
    expect((asDataUrl.body as { predictions: ClassScore[][] }).predictions).toEqual([viaBase64]);
    // A raw body has no parameters: the top label, as text-classification answers by default.
    expect(asRaw.body).toMatchObject({ endpoint: 'vision', model: 'vit', version: '1', route: 'primary' });
    expect((asRaw.body as { predictions: ClassScore[][] }).predictions).toEqual([viaBase64?.slice(0, 1)]);
    expect(asBase64.headers.get('x-modelgate-model')).toBe('vit:1');
  });

  it("applies the endpoint's topK to image answers", async () => {
    const small = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3a7' } })
      .png()
      .toBuffer();
    const answer = await postRaw('/serve/vision-tight', small, 'image/png');
    expect(answer.status).toBe(200);
    expect((answer.body as { predictions: ClassScore[][] }).predictions[0]).toHaveLength(2);
  });

  it('refuses corrupt images with 400, naming the image', async () => {
    const truncated = Buffer.concat([jpeg.subarray(0, Math.floor(jpeg.length / 2)), Buffer.alloc(64, 0x5a)]);
    const message = expectRefused(
      await postRaw('/serve/vision', truncated, 'image/jpeg'),
      400,
      'INVALID_ARGUMENT',
    );
    expect(message).toMatch(/^image: /);
    expectRefused(await gateway.post('/serve/vision', { image: '!!not base64!!' }), 400, 'INVALID_ARGUMENT');
    expectRefused(await gateway.post('/serve/vision', { text: 'a cat' }), 400, 'INVALID_ARGUMENT');
    expectRefused(
      await gateway.post('/serve/vision', { image: jpeg.toString('base64'), parameters: { top_k: 0 } }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('refuses GIF and BMP images and wrong content types with 415', async () => {
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a33' } })
      .gif()
      .toBuffer();
    expectRefused(await postRaw('/serve/vision', gif, 'image/gif'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRefused(
      await gateway.post('/serve/vision', { image: gif.toString('base64') }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectRefused(
      await gateway.post('/serve/vision', { image: `data:image/bmp;base64,${tinyBmp().toString('base64')}` }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectRefused(await postRaw('/serve/vision', tinyBmp(), 'image/bmp'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    // A JPEG declared as PNG, a JPEG without an image type, and an image for a text endpoint.
    expectRefused(await postRaw('/serve/vision', jpeg, 'image/png'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRefused(
      await postRaw('/serve/vision', jpeg, 'application/octet-stream'),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    expectRefused(await postRaw('/serve/vision', jpeg, 'text/plain'), 415, 'UNSUPPORTED_MEDIA_TYPE');
    expectRefused(await postRaw('/serve/sentiment', jpeg, 'image/jpeg'), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it("refuses images over the endpoint's byte or pixel limit with 413", async () => {
    expect(jpeg.length).toBeGreaterThan(4096);
    const bytes = expectRefused(
      await postRaw('/serve/vision-tight', jpeg, 'image/jpeg'),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(bytes).toContain('over the limit of 4096');
    const wide = await sharp({ create: { width: 200, height: 100, channels: 3, background: '#333' } })
      .png()
      .toBuffer();
    expect(wide.length).toBeLessThan(4096);
    const pixels = expectRefused(
      await gateway.post('/serve/vision-tight', { image: wide.toString('base64') }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
    expect(pixels).toContain('20000 pixels, over the limit of 10000');
  });

  it("takes an image as large as the endpoint's maxImageBytes, past GATEWAY_BODY_LIMIT_BYTES, which bounds other bodies", async () => {
    // Noise does not compress: a PNG over 2 MiB, past the gateway's 1 MiB body limit, within
    // the vision endpoint's default 10 MiB image limit.
    const noise = randomBytes(900 * 900 * 3);
    const png = await sharp(noise, { raw: { width: 900, height: 900, channels: 3 } })
      .png()
      .toBuffer();
    expect(png.length).toBeGreaterThan(2 * 1024 * 1024);
    const raw = await postRaw('/serve/vision', png, 'image/png');
    expect(raw.status).toBe(200);
    const json = await gateway.post('/serve/vision', { image: png.toString('base64') });
    expect(json.status).toBe(200);
    const text = await gateway.post('/serve/sentiment', { text: 'a'.repeat(2 * 1024 * 1024) });
    expect(expectRefused(text, 413, 'PAYLOAD_TOO_LARGE')).toBe(
      "the request body is over 1048576 bytes, this endpoint's limit",
    );
  });

  it('serves a raw endpoint routed to an image model as an image endpoint: raw bodies, image-sized JSON, async jobs', async () => {
    const direct = await postRaw('/serve/vision', jpeg, 'image/jpeg');
    const raw = await postRaw('/serve/vision-raw', jpeg, 'image/jpeg');
    expect(raw.status, JSON.stringify(raw.body)).toBe(200);
    expect((raw.body as { predictions: unknown[] }).predictions).toEqual(
      (direct.body as { predictions: unknown[] }).predictions,
    );
    // Base64 JSON past the 1 MiB of other bodies, within the image limit.
    const noise = randomBytes(700 * 700 * 3);
    const png = await sharp(noise, { raw: { width: 700, height: 700, channels: 3 } })
      .png()
      .toBuffer();
    const json = await gateway.post('/serve/vision-raw', { image: png.toString('base64') });
    expect(json.status, JSON.stringify(json.body)).toBe(200);
    const accepted = await postRaw('/serve/vision-raw', jpeg, 'image/jpeg', { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    // A raw endpoint routed to a text model takes JSON, as its model's task does.
    const text = await postRaw('/serve/text-raw', jpeg, 'image/jpeg');
    expect(expectRefused(text, 415, 'UNSUPPORTED_MEDIA_TYPE')).toMatch(
      /^endpoint text-raw \(raw\) routes this call to model bert:1, which does text-classification and takes a JSON body/,
    );
  });

  it('queues a raw image body as an asynchronous job (Prefer: respond-async) and answers it as the synchronous path', async () => {
    const accepted = await postRaw('/serve/vision', jpeg, 'image/jpeg', { prefer: 'respond-async' });
    expect(accepted.status).toBe(202);
    const { status_url: statusUrl } = accepted.body as { status_url: string };
    let view: { status: string; result?: { predictions: unknown[] } } = { status: 'queued' };
    await waitFor(async () => {
      view = (await (await fetch(`${gateway.url}${statusUrl}`)).json()) as typeof view;
      return view.status === 'succeeded' || view.status === 'failed';
    });
    expect(view.status).toBe('succeeded');
    const direct = await postRaw('/serve/vision', jpeg, 'image/jpeg');
    expect(view.result?.predictions).toEqual((direct.body as { predictions: unknown[] }).predictions);
    // Refused at once, not queued.
    const gif = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#a33' } })
      .gif()
      .toBuffer();
    const refused = await postRaw('/serve/vision', gif, 'image/gif', { prefer: 'respond-async' });
    expectRefused(refused, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });

  it('batches concurrent image requests together on the worker, each answered as alone', async () => {
    const images = await Promise.all([11, 12, 13, 14].map((seed) => testJpeg(120 + seed, 90, seed)));
    const alone: unknown[] = [];
    for (const image of images) {
      const answer = await postRaw('/serve/vision', image, 'image/jpeg');
      alone.push((answer.body as { predictions: unknown }).predictions);
    }
    const batches = async () => {
      const text = await worker.metrics();
      return {
        count: metricValue(text, 'modelgate_batch_size_count', MODEL),
        sum: metricValue(text, 'modelgate_batch_size_sum', MODEL),
      };
    };
    const before = await batches();
    // Keep the model's one instance busy, so that the requests' rows queue up together behind it.
    const held = worker.client.call(
      'ModelInfer',
      pixelInferRequest('vit', pixelRows(1, 5, [3, 224, 224]), [3, 224, 224]),
      {
        metadata: { [HOLD]: '3000' },
      },
    );
    await waitFor(async () => (await batches()).count === before.count + 1, { intervalMs: 20 });
    const pending = images.map((image) => postRaw('/serve/vision', image, 'image/jpeg'));
    await waitFor(
      async () => metricValue(await worker.metrics(), 'modelgate_queue_depth', MODEL) === images.length,
      { intervalMs: 20, timeoutMs: 10_000 },
    );
    const together = await Promise.all(pending);
    await held;
    const after = await batches();
    // The held batch of 1, then the four queued rows in one batch of 4.
    expect(after.count - before.count).toBe(2);
    expect(after.sum - before.sum).toBe(1 + images.length);
    together.forEach((answer, index) => {
      expect(answer.status).toBe(200);
      const [got] = (answer.body as { predictions: ClassScore[][] }).predictions;
      expectScoresClose(got, (alone[index] as ClassScore[][])[0] ?? []);
    });
  });
});
