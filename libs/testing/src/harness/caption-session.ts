// Test support: a vision-encoder-decoder fixture's greedy caption computed in onnxruntime without
// transformers.js, the independent reference of image-to-text: the encoder once per image
// (pixel_values → last_hidden_state), then the decoder (DecoderSession) from
// decoder_start_token_id with the encoder's states as encoder_hidden_states at every step, with or
// without its KV cache, until eos or max_new_tokens.
import { basename, join } from 'node:path';
import * as ort from 'onnxruntime-node';
import { GPT2_END_OF_TEXT } from '@modelgate/fixtures';
import { type FixtureSpec, encoderSpecOf, getFixtureSpec } from '@modelgate/fixtures';
import { ENCODER_MODEL_FILE } from '@modelgate/fixtures';
import { ENCODER_HIDDEN_STATES } from '@modelgate/fixtures';
import { LAST_HIDDEN_STATE, PIXEL_VALUES, pixelValuesDims } from '@modelgate/fixtures';
import { type ContextFeeds, DecoderSession } from './decoder-session.js';

/** The decoder's first input token: <|endoftext|>, the captioner's decoder_start_token_id. */
export const DECODER_START_TOKEN_ID = GPT2_END_OF_TEXT.id;

/** A captioner fixture's encoder and decoder sessions. */
export class CaptionSession {
  private constructor(
    readonly encoder: ort.InferenceSession,
    readonly decoder: DecoderSession,
    /** One image's pixel_values dims: [channels, size, size]. */
    readonly imageDims: readonly number[],
  ) {}

  /**
   * Opens onnx/encoder_model.onnx and onnx/decoder_model_merged.onnx of a vision-encoder-decoder
   * fixture directory; the spec defaults to the registered fixture the directory is named after.
   */
  static async open(dir: string, spec: FixtureSpec = getFixtureSpec(basename(dir))): Promise<CaptionSession> {
    const imageDims = pixelValuesDims(encoderSpecOf(spec)).slice(1).map(Number);
    const encoder = await ort.InferenceSession.create(join(dir, ENCODER_MODEL_FILE));
    try {
      return new CaptionSession(encoder, await DecoderSession.open(dir, spec), imageDims);
    } catch (error) {
      await encoder.release();
      throw error;
    }
  }

  /** Runs the encoder on images (each [channels, size, size] floats): last_hidden_state [images, positions, width]. */
  async encode(images: readonly Float32Array[]): Promise<ort.Tensor> {
    const size = this.imageDims.reduce((a, b) => a * b, 1);
    const batch = new Float32Array(images.length * size);
    images.forEach((image, row) => {
      if (image.length !== size)
        throw new Error(`pixel values of ${image.length} floats; [${this.imageDims.join(', ')}] is ${size}`);
      batch.set(image, row * size);
    });
    const feeds = { [PIXEL_VALUES]: new ort.Tensor('float32', batch, [images.length, ...this.imageDims]) };
    const states = (await this.encoder.run(feeds))[LAST_HIDDEN_STATE];
    if (states === undefined) throw new Error(`the encoder gave no ${LAST_HIDDEN_STATE}`);
    return states;
  }

  /** The decoder's context for a batch of images, one row each: encoder_hidden_states. */
  async contextOf(images: readonly Float32Array[]): Promise<ContextFeeds> {
    return { [ENCODER_HIDDEN_STATES]: await this.encode(images) };
  }

  /**
   * Greedy caption ids of one image, the start token excluded, ending with eos when generation
   * stopped on it: with the KV cache, or (`cache: false`) rerunning the whole sequence every step.
   */
  async greedy(image: Float32Array, maxNewTokens: number, { cache = true } = {}): Promise<number[]> {
    const context = await this.contextOf([image]);
    const start = [DECODER_START_TOKEN_ID];
    return cache
      ? this.decoder.greedyCached(start, maxNewTokens, context)
      : this.decoder.greedyUncached(start, maxNewTokens, context);
  }

  async release(): Promise<void> {
    await Promise.all([this.encoder.release(), this.decoder.release()]);
  }
}

/**
 * The greedy caption token ids of one image (pixel_values [channels, size, size] as the fixture's
 * image processor leaves them) by the captioner in `fixtureDir` (e.g. `await
 * ensureFixture('tiny-vit-gpt2')`), with the KV cache: the start token excluded, at most
 * `maxNewTokens`, ending with eos (50256) when generation stopped on it.
 */
export async function greedyCaption(
  fixtureDir: string,
  pixelValues: Float32Array,
  maxNewTokens: number,
  spec?: FixtureSpec,
): Promise<number[]> {
  const session = await CaptionSession.open(fixtureDir, spec);
  try {
    return await session.greedy(pixelValues, maxNewTokens);
  } finally {
    await session.release();
  }
}
