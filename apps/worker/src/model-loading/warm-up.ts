import { warmUpTensors } from '@modelgate/contracts';
import { DecodeBatch, type StepFeeds } from '../generation/decode-batch.js';
import {
  type DecoderLayout,
  ENCODER_HIDDEN_STATES,
  LAST_HIDDEN_STATE,
} from '../generation/decoder-layout.js';
import { type EncoderStates } from '../generation/encoder-states.js';
import { type OnnxSession } from './onnx-session.adapter.js';

/** Runs the warm-up request once per session; returns the slowest run in ms. */
export async function warmUp(
  sessions: readonly OnnxSession[],
  imageDims?: readonly number[],
): Promise<number> {
  let slowest = 0;
  for (const session of sessions) {
    const feeds = warmUpTensors(session.inputs, imageDims);
    if (!feeds) continue;
    const started = performance.now();
    await session.run(feeds);
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}

/**
 * One timed run of the warm-up request on an already warm `session`: its units (rows × sequence
 * for token models, rows otherwise, as the batcher counts padded tokens) and its µs inside
 * onnxruntime. Undefined when the graph takes inputs no warm-up request can be made for.
 */
export async function timeWarmRun(
  session: OnnxSession,
  imageDims?: readonly number[],
): Promise<{ units: number; micros: number } | undefined> {
  const feeds = warmUpTensors(session.inputs, imageDims);
  if (!feeds) return undefined;
  const mask = feeds.attention_mask;
  const first = Object.values(feeds)[0];
  const units = mask ? (mask.dims[0] ?? 1) * (mask.dims[1] ?? 1) : (first?.dims[0] ?? 1);
  const run = await session.run(feeds);
  return { units, micros: run.runMicros };
}

/**
 * Warms a decoder's sessions up the way generation runs them: for image-to-text the image
 * encoder on one blank image first, then a one-token prefill (cache inputs with past_sequence 0,
 * attending to those states), then one decode step on its cache. Returns the slowest session in ms.
 */
export async function warmUpDecoder(
  sessions: readonly OnnxSession[],
  layout: DecoderLayout,
  imageDims?: readonly number[],
): Promise<number> {
  let slowest = 0;
  for (const session of sessions) {
    const started = performance.now();
    const batch = new DecodeBatch<number>(layout, async (feeds: StepFeeds) => {
      // `run` hands feeds alone in their buffer over to the thread; the batch feeds the encoder
      // states again at the next step, so they cross as a copy.
      const states = feeds[ENCODER_HIDDEN_STATES];
      const sent = states
        ? { ...feeds, [ENCODER_HIDDEN_STATES]: { ...states, data: states.data.slice() } }
        : feeds;
      return (await session.run(sent)).outputs;
    });
    const encoderStates = layout.crossAttention ? await warmUpEncoder(session, imageDims) : undefined;
    await batch.prefill([{ id: 0, promptIds: [0], encoderStates }]);
    await batch.step(new Map([[0, 0]]));
    slowest = Math.max(slowest, performance.now() - started);
  }
  return slowest;
}

/** Runs `session`'s image encoder on one blank image shaped like its input; gives the image's states. */
async function warmUpEncoder(session: OnnxSession, imageDims?: readonly number[]): Promise<EncoderStates> {
  const feeds = session.encoder ? warmUpTensors(session.encoder.inputs, imageDims) : undefined;
  const pixels = feeds ? Object.values(feeds)[0] : undefined;
  if (!pixels || !session.runEncoder) throw new Error('the session has no image encoder to warm up');
  const states = (await session.runEncoder(pixels)).outputs[LAST_HIDDEN_STATE];
  if (!(states?.data instanceof Float32Array) || states.dims.length !== 3)
    throw new Error(`the image encoder gave no FP32 '${LAST_HIDDEN_STATE}' [batch, sequence, hidden]`);
  return { data: states.data, sequence: states.dims[1]! };
}
