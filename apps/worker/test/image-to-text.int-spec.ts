// ModelGenerate on an image-to-text model (tiny-vit-gpt2: ViT encoder + GPT-2 decoder with
// cross-attention) in a real worker process over onnxruntime: the image is encoded once on the
// session thread, the decoder runs through the continuous batching of text generation.
import { ensureFixture } from '@modelgate/fixtures';
import {
  DECODER_START_TOKEN_ID,
  type RunningWorker,
  greedyCaption,
  metricValue,
  startWorker,
  testCard,
  transformersCaption,
  transformersPixelValues,
} from '@modelgate/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PAUSE,
  collect,
  failure,
  follow,
  metricDelta,
  request,
  stepsBetween,
} from './support/generation-stream.js';

const FIXTURE = 'tiny-vit-gpt2';
const CARDS = [testCard(300, 200, 3), testCard(64, 96, 11), testCard(224, 224, 29)];
const IMAGE_DIMS = [3, 224, 224];
const NEW_TOKENS = 12;

/** The image as ModelGenerate carries it: FP32 little-endian bytes and [C, H, W]. */
const image = (pixels: Float32Array, dims: number[] = IMAGE_DIMS) => ({
  pixel_values: Buffer.from(pixels.buffer, pixels.byteOffset, pixels.byteLength),
  pixel_values_shape: dims,
});

/** A caption request: the decoder start token, the image, eos = the start token (GPT-2's). */
const caption = (model: string, pixels: Float32Array, maxNewTokens = NEW_TOKENS) =>
  request(model, [DECODER_START_TOKEN_ID], maxNewTokens, {
    eos_token_ids: [DECODER_START_TOKEN_ID],
    ...image(pixels),
  });

describe('worker: ModelGenerate on an image-to-text model (tiny-vit-gpt2)', () => {
  let worker: RunningWorker;
  let fixtureDir: string;
  let pixels: Float32Array[];
  let expected: number[][];

  beforeAll(async () => {
    fixtureDir = await ensureFixture(FIXTURE);
    pixels = await Promise.all(CARDS.map((card) => transformersPixelValues(fixtureDir, card)));
    expected = [];
    for (const values of pixels) expected.push(await greedyCaption(fixtureDir, values, NEW_TOKENS));
    worker = await startWorker([
      {
        name: 'captioner',
        fixture: FIXTURE,
        task: 'image-to-text',
        batching: { maxBatchSize: 4, maxQueueSize: 8 },
      },
      { name: 'gpt', fixture: 'tiny-gpt2', task: 'text-generation', batching: { maxBatchSize: 2 } },
    ]);
  });

  afterAll(async () => {
    await worker?.stop();
  });

  it("streams each image's greedy caption: the reference's and transformers.js' image-to-text pipeline's", async () => {
    for (const [i, values] of pixels.entries()) {
      const { tokens, messages } = await collect(
        worker.client.stream('ModelGenerate', caption('captioner', values)),
      );
      expect(tokens, `image ${i}`).toEqual(expected[i]);
      expect(messages).toHaveLength(tokens.length);
      expect(messages.at(-1)).toMatchObject({ prompt_tokens: 1, generated_tokens: tokens.length });
    }
    const pipeline = await transformersCaption(fixtureDir, CARDS[0]!, NEW_TOKENS);
    expect(pipeline.tokenIds).toEqual(expected[0]);
  });

  it('lets a captioned sequence join a running one mid-flight: both get their solo tokens, decoding together', async () => {
    const before = await worker.metrics();
    // A pauses after its 2nd token until one sequence waits: B, sent once A runs, joins mid-flight.
    const streamA = follow(
      worker.client.stream('ModelGenerate', caption('captioner', pixels[0]!), {
        metadata: { [PAUSE]: '2:1' },
      }),
    );
    await streamA.first;
    const resultB = collect(worker.client.stream('ModelGenerate', caption('captioner', pixels[1]!)));
    expect((await streamA.done).tokens).toEqual(expected[0]);
    expect((await resultB).tokens).toEqual(expected[1]);
    const after = await worker.metrics();
    const delta = metricDelta(before, after, 'captioner');
    const { steps, single: singleSteps } = stepsBetween(before, after, 'captioner');
    expect(steps - singleSteps).toBeGreaterThanOrEqual(1); // decode steps of size 2
    // Each image went through the encoder once, at its own prefill.
    expect(delta('modelgate_generation_step_duration_seconds_count', { phase: 'encode' })).toBe(2);
  });

  it('encodes the images of sequences that join together in one encoder run', async () => {
    const encodes = async () =>
      metricValue(await worker.metrics(), 'modelgate_generation_step_duration_seconds_count', {
        model: 'captioner',
        version: '1',
        phase: 'encode',
      });
    const before = await encodes();
    // A holds the loop after its first token until two sequences wait: B and C join in one prefill.
    const streamA = follow(
      worker.client.stream('ModelGenerate', caption('captioner', pixels[2]!), {
        metadata: { [PAUSE]: '1:2' },
      }),
    );
    await streamA.first;
    // B leaves early; C then decodes on after A, on its own row of the states.
    const [b, c] = [4, NEW_TOKENS].map((maxNewTokens, i) =>
      collect(worker.client.stream('ModelGenerate', caption('captioner', pixels[i]!, maxNewTokens))),
    );
    expect((await b!).tokens).toEqual(expected[0]!.slice(0, 4));
    expect((await c!).tokens).toEqual(expected[1]);
    expect((await streamA.done).tokens).toEqual(expected[2]);
    expect((await encodes()) - before).toBe(2); // A's image, then B's and C's together
  });

  it('refuses a missing image, a wrong shape or byte length, and an image sent to a text-generation model', async () => {
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      [
        'captioner',
        request('captioner', [DECODER_START_TOKEN_ID], 4),
        /pixel_values are required: an image-to-text model captions an image/,
      ],
      [
        'captioner',
        request('captioner', [DECODER_START_TOKEN_ID], 4, image(pixels[0]!, [3, 112, 448])),
        /pixel_values_shape must be \[channels, height, width\] = \[3, 224, 224\] for this model, got \[3, 112, 448\]/,
      ],
      [
        'captioner',
        request('captioner', [DECODER_START_TOKEN_ID], 4, image(pixels[0]!.subarray(1))),
        /pixel_values must hold 150528 FP32 values \(602112 bytes\)/,
      ],
      [
        'gpt',
        request('gpt', [464, 2068], 4, image(pixels[0]!)),
        /pixel_values are for image-to-text models only/,
      ],
    ];
    for (const [model, message, reason] of cases) {
      const error = await failure(worker.client.stream('ModelGenerate', message));
      expect(error.code, model).toBe(3); // INVALID_ARGUMENT
      expect(error.details).toMatch(reason);
    }
  });
});
