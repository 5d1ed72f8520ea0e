import { GrpcStatus } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type GenerateRequest, encodeGenerateRequest } from './generate-call.js';
import { type ModelGenerateResponseMessage } from './generate-messages.js';
import { InferenceClient } from './inference-client.js';
import { type WorkerCallOptions, WorkerCallError, type WorkerChannel } from './worker-channel.js';

const ADDRESS = 'worker-a:8001';

function message(tokenId: number, finishReason = ''): ModelGenerateResponseMessage {
  return {
    model_name: 'gpt',
    model_version: '1',
    token_ids: [tokenId],
    finish_reason: finishReason,
    prompt_tokens: 1,
    generated_tokens: 1,
  };
}

/**
 * A fake channel whose stream sends `messages`, then either ends (`end`: the call's OK status) or
 * holds until the call is cancelled; it records how each stream ended.
 */
class ScriptedChannel implements WorkerChannel {
  readonly address = ADDRESS;
  /** How each call ended: `completed` (status read), `cancelled` or `left` (return() before the end). */
  readonly endings: string[] = [];

  constructor(
    private readonly messages: ModelGenerateResponseMessage[],
    private readonly then: 'end' | 'hold',
  ) {}

  async *modelGenerate(
    _request: unknown,
    options: WorkerCallOptions,
  ): AsyncGenerator<ModelGenerateResponseMessage> {
    let ending = 'left';
    try {
      for (const item of this.messages) yield item;
      if (this.then === 'hold') {
        await new Promise<never>((_, reject) =>
          options.signal?.addEventListener('abort', () =>
            reject(new WorkerCallError(GrpcStatus.CANCELLED, 'Cancelled on client')),
          ),
        );
      }
      ending = 'completed';
    } catch (error) {
      ending = 'cancelled';
      throw error;
    } finally {
      this.endings.push(ending);
    }
  }

  modelInfer(): never {
    throw new Error('not used');
  }
  serverReady(): Promise<boolean> {
    return Promise.resolve(true);
  }
  modelReady(): Promise<boolean> {
    return Promise.resolve(true);
  }
  close(): void {}
}

function setup(channel: ScriptedChannel) {
  const client = new InferenceClient({ createChannel: () => channel });
  const outstanding = () => client.workerStatus().find((w) => w.address === ADDRESS)?.outstanding ?? 0;
  return { client, outstanding };
}

function request(extra: Partial<GenerateRequest> = {}): GenerateRequest {
  return {
    modelName: 'gpt',
    inputIds: [1],
    maxNewTokens: 4,
    eosTokenIds: [],
    doSample: false,
    temperature: 1,
    topK: 0,
    topP: 1,
    deadlineEpochMs: Date.now() + 10_000,
    addresses: [ADDRESS],
    ...extra,
  };
}

describe('startGeneration', () => {
  it('frees the worker when the caller aborts a call nobody iterates', async () => {
    const channel = new ScriptedChannel([message(7)], 'hold');
    const { client, outstanding } = setup(channel);
    const caller = new AbortController();
    await client.generate(request({ signal: caller.signal }));
    expect(outstanding()).toBe(1);
    caller.abort();
    expect(outstanding()).toBe(0);
    await Promise.resolve();
    expect(channel.endings).toEqual(['left']);
    await client.close();
  });

  it('frees the worker on cancel() before any iteration', async () => {
    const channel = new ScriptedChannel([message(7)], 'hold');
    const { client, outstanding } = setup(channel);
    const call = await client.generate(request());
    call.cancel();
    expect(outstanding()).toBe(0);
    const chunks = [];
    for await (const chunk of call) chunks.push(chunk);
    expect(chunks).toEqual([]);
    await client.close();
  });

  it('reads the status after the last message, even when the consumer stops at it', async () => {
    const channel = new ScriptedChannel([message(7), message(8, 'length')], 'end');
    const { client, outstanding } = setup(channel);
    const call = await client.generate(request());
    for await (const chunk of call) if (chunk.finishReason) break;
    expect(channel.endings).toEqual(['completed']);
    expect(outstanding()).toBe(0);
    await client.close();
  });
});

describe('encodeGenerateRequest', () => {
  const base: GenerateRequest = {
    modelName: 'captioner',
    inputIds: [50256],
    maxNewTokens: 8,
    eosTokenIds: [50256],
    doSample: false,
    temperature: 1,
    topK: 0,
    topP: 1,
    deadlineEpochMs: 0,
  };

  it('carries an image as the bytes of its FP32 values, without copying them, and its dims', () => {
    const backing = new Float32Array(8);
    const pixels = backing.subarray(2, 8); // [3, 1, 2] at an offset into a larger buffer
    pixels.set([0.5, -1, 1, 0.25, 0, -0.5]);
    const message = encodeGenerateRequest({ ...base, pixelValues: { data: pixels, dims: [3, 1, 2] } });
    expect(message.pixel_values_shape).toEqual([3, 1, 2]);
    expect(message.pixel_values?.buffer).toBe(backing.buffer);
    expect(message.pixel_values?.byteOffset).toBe(8);
    expect(message.pixel_values?.byteLength).toBe(24);
    const view = message.pixel_values!;
    expect(new Float32Array(view.buffer, view.byteOffset, view.byteLength / 4)).toEqual(pixels);
  });

  it('leaves the image fields out of a text prompt', () => {
    const message = encodeGenerateRequest(base);
    expect('pixel_values' in message).toBe(false);
    expect('pixel_values_shape' in message).toBe(false);
  });
});
