import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { isDetached, planTransfer } from './tensor-transfer.js';

type Tensor = { type: string; data: unknown; dims: number[] };

/** Posts `tensors` as the session adapter does and returns what the other side receives. */
function postAcross(tensors: Record<string, Tensor>): Record<string, Tensor> {
  const { tensors: planned, transfer } = planTransfer(tensors);
  const { port1, port2 } = new MessageChannel();
  port1.postMessage(planned, transfer);
  const received = receiveMessageOnPort(port2)?.message as Record<string, Tensor>;
  port1.close();
  return received;
}

describe('planTransfer', () => {
  it('hands over a tensor alone in its buffer without copying it: the sender can no longer read it', () => {
    const pixels = Float32Array.from([1, 2, 3, 4]);
    const { tensors, transfer } = planTransfer({
      pixel_values: { type: 'float32', data: pixels, dims: [1, 4] },
    });
    expect(tensors.pixel_values?.data).toBe(pixels);
    expect(transfer).toEqual([pixels.buffer]);

    const received = postAcross({ pixel_values: { type: 'float32', data: pixels, dims: [1, 4] } });
    expect(Array.from(received.pixel_values?.data as Float32Array)).toEqual([1, 2, 3, 4]);
    expect(pixels.length).toBe(0); // detached: the caller gave it up
  });

  it('copies a view into a larger buffer once and transfers the copy, leaving the sender whole', () => {
    // A gRPC message: header bytes, then the tensor at an aligned offset, then more fields.
    const message = new Float32Array([9, 9, 1.5, 2.5, 3.5, 9]);
    const view = message.subarray(2, 5);
    const { tensors, transfer } = planTransfer({ x: { type: 'float32', data: view, dims: [1, 3] } });
    const planned = tensors.x?.data as Float32Array;
    expect(planned).not.toBe(view);
    expect(planned.buffer.byteLength).toBe(3 * 4); // only the tensor's own bytes cross
    expect(transfer).toEqual([planned.buffer]);

    const received = postAcross({ x: { type: 'float32', data: view, dims: [1, 3] } });
    expect(Array.from(received.x?.data as Float32Array)).toEqual([1.5, 2.5, 3.5]);
    expect(Array.from(message)).toEqual([9, 9, 1.5, 2.5, 3.5, 9]); // the message is untouched
    expect(Array.from(view)).toEqual([1.5, 2.5, 3.5]);
  });

  it("copies a Node Buffer view (whose own slice() would not copy) and keeps the pool's other bytes", () => {
    const pool = Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]);
    const view = pool.subarray(2, 6);
    const received = postAcross({ ids: { type: 'uint8', data: view, dims: [1, 4] } });
    expect(Array.from(received.ids?.data as Uint8Array)).toEqual([3, 4, 5, 6]);
    expect(Array.from(pool)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('transfers a buffer two tensors share only once', () => {
    const shared = new Float32Array(4);
    const { transfer } = planTransfer({
      a: { type: 'float32', data: shared, dims: [4] },
      b: { type: 'float32', data: shared, dims: [4] },
    });
    expect(transfer).toEqual([shared.buffer]);
  });

  it('leaves string tensors to the structured clone', () => {
    const strings = ['a', 'b'];
    const { tensors, transfer } = planTransfer({ s: { type: 'string', data: strings, dims: [2] } });
    expect(tensors.s?.data).toBe(strings);
    expect(transfer).toEqual([]);
  });
});

describe('isDetached', () => {
  it('tells a tensor whose buffer was handed over from an empty one', () => {
    const data = new Float32Array(4);
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(data, [data.buffer]);
    port1.close();
    port2.close();
    expect(isDetached(data, [1, 4])).toBe(true);
    expect(isDetached(new Float32Array(0), [1, 0])).toBe(false);
    expect(isDetached(new Float32Array(4), [1, 4])).toBe(false);
    expect(isDetached(['text'], [1])).toBe(false);
  });
});
