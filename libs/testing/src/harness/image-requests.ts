// Test support for image models over the Open Inference Protocol: seeded pixel rows as an image
// processor leaves them (normalized to [-1, 1]), RGB test cards for an image processor to take,
// ModelInfer requests carrying pixel rows, and the unbatched truth from onnxruntime in the test's
// own process.
import * as ort from 'onnxruntime-node';
import { encodeTensor } from '@modelgate/contracts';
import { PIXEL_VALUES } from '@modelgate/fixtures';
import { type Message } from './oip-test-client.js';

/** `count` seeded rows of `channels × height × width` floats in [-1, 1). */
export function pixelRows(
  count: number,
  seed: number,
  [channels, height, width]: readonly number[],
): Float32Array[] {
  let state = seed >>> 0;
  const next = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  const length = (channels ?? 0) * (height ?? 0) * (width ?? 0);
  return Array.from({ length: count }, () => Float32Array.from({ length }, () => next() * 2 - 1));
}

/** An RGB image as interleaved bytes (R, G, B per pixel, rows top to bottom). */
export interface RgbImage {
  data: Uint8ClampedArray;
  width: number;
  height: number;
}

/**
 * An RGB test card of any size (an image processor resizes it): red and green gradients across
 * and down, blue a pattern that `seed` changes.
 */
export function testCard(width: number, height: number, seed: number): RgbImage {
  const data = new Uint8ClampedArray(width * height * 3);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const offset = (y * width + x) * 3;
      data[offset] = (x * 255) / width;
      data[offset + 1] = (y * 255) / height;
      data[offset + 2] = ((x * seed + y * 7) % 64) * 4;
    }
  }
  return { data, width, height };
}

/** A ModelInfer request of `rows` stacked as FP32 pixel_values [rows, ...rowDims], raw bytes. */
export function pixelInferRequest(
  model: string,
  rows: readonly Float32Array[],
  rowDims: readonly number[],
  options: { id?: string } = {},
): Message {
  const shape = [rows.length, ...rowDims];
  const data = new Float32Array(rows.reduce((sum, row) => sum + row.length, 0));
  rows.forEach((row, index) => data.set(row, index * row.length));
  const bytes = encodeTensor('FP32', shape, data);
  return {
    model_name: model,
    id: options.id ?? '',
    inputs: [{ name: PIXEL_VALUES, datatype: 'FP32', shape }],
    outputs: [],
    raw_input_contents: [Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)],
  };
}

/** Runs each pixel row alone ([1, ...rowDims]) on onnxruntime in this process: the unbatched truth. */
export async function unbatchedPixelOutputs(
  modelPath: string,
  rows: readonly Float32Array[],
  rowDims: readonly number[],
  outputName: string,
): Promise<Float32Array[]> {
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1 });
  try {
    const results: Float32Array[] = [];
    for (const row of rows) {
      const out = await session.run({ [PIXEL_VALUES]: new ort.Tensor('float32', row, [1, ...rowDims]) });
      results.push(out[outputName]?.data as Float32Array);
    }
    return results;
  } finally {
    await session.release();
  }
}
