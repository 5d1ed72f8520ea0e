import { describe, expect, it } from 'vitest';
import { rawOutputs } from './raw-outputs.js';

describe('rawOutputs', () => {
  it('writes tensors as KServe v2 JSON with flat data', () => {
    expect(
      rawOutputs([
        { name: 'logits', datatype: 'FP32', shape: [1, 2], data: Float32Array.from([0.5, -1]) },
        { name: 'ids', datatype: 'INT64', shape: [2], data: BigInt64Array.from([101n, 102n]) },
        { name: 'flags', datatype: 'BOOL', shape: [2], data: Uint8Array.from([1, 0]) },
        { name: 'half', datatype: 'FP16', shape: [1], data: Uint16Array.from([0x3c00]) },
        { name: 'text', datatype: 'BYTES', shape: [1], data: [new TextEncoder().encode('hé')] },
      ]),
    ).toEqual([
      { name: 'logits', datatype: 'FP32', shape: [1, 2], data: [0.5, -1] },
      { name: 'ids', datatype: 'INT64', shape: [2], data: [101, 102] },
      { name: 'flags', datatype: 'BOOL', shape: [2], data: [true, false] },
      { name: 'half', datatype: 'FP16', shape: [1], data: [1] },
      { name: 'text', datatype: 'BYTES', shape: [1], data: ['hé'] },
    ]);
  });
});
