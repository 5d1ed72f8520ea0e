import { encodeTensor, isModelgateError } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { decodeInferResponse, encodeInferRequest, workerTimings } from './infer-codec.js';

describe('encodeInferRequest', () => {
  it('puts every tensor in raw_input_contents as little-endian bytes, in input order', () => {
    const ids = BigInt64Array.from([101n, 2023n, 102n]);
    const message = encodeInferRequest({
      modelName: 'bert',
      modelVersion: '1',
      id: 'r1',
      inputs: [
        { name: 'input_ids', datatype: 'INT64', dims: [1, 3], data: ids },
        { name: 'texts', datatype: 'BYTES', dims: [1], data: ['hé'] },
      ],
      outputs: ['logits'],
    });
    expect(message).toMatchObject({
      model_name: 'bert',
      model_version: '1',
      id: 'r1',
      inputs: [
        { name: 'input_ids', datatype: 'INT64', shape: [1, 3] },
        { name: 'texts', datatype: 'BYTES', shape: [1] },
      ],
      outputs: [{ name: 'logits' }],
    });
    expect([...message.raw_input_contents[0]!]).toEqual([...encodeTensor('INT64', [1, 3], ids)]);
    expect([...message.raw_input_contents[1]!]).toEqual([3, 0, 0, 0, 0x68, 0xc3, 0xa9]);
  });

  it('leaves version and id empty and asks for every output when none are given', () => {
    const message = encodeInferRequest({
      modelName: 'm',
      inputs: [{ name: 'x', datatype: 'FP32', dims: [2], data: Float32Array.of(1, 2) }],
    });
    expect(message).toMatchObject({ model_version: '', id: '', outputs: [] });
  });

  it('rejects data that does not fill the dims with INVALID_ARGUMENT naming the tensor', () => {
    const error = (() => {
      try {
        encodeInferRequest({
          modelName: 'm',
          inputs: [{ name: 'input_ids', datatype: 'INT64', dims: [1, 4], data: new BigInt64Array(3) }],
        });
      } catch (e) {
        return e;
      }
    })();
    expect(isModelgateError(error) && error.code).toBe('INVALID_ARGUMENT');
    expect((error as Error).message).toContain('input_ids');
  });
});

describe('decodeInferResponse', () => {
  const logits = Float32Array.of(0.25, -1.5);

  it('decodes raw_output_contents by datatype and shape, with the response parameters', () => {
    const decoded = decodeInferResponse({
      model_name: 'bert',
      model_version: '1',
      id: 'r1',
      parameters: {
        queue_us: { parameter_choice: 'int64_param', int64_param: 1500 },
        cached: { parameter_choice: 'bool_param', bool_param: false },
        unset: {},
      },
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [1, 2] }],
      raw_output_contents: [Buffer.from(encodeTensor('FP32', [1, 2], logits))],
    });
    expect(decoded).toMatchObject({ modelName: 'bert', modelVersion: '1', id: 'r1' });
    expect(decoded.parameters).toEqual({ queue_us: 1500, cached: false });
    const output = decoded.outputs.logits;
    expect(output?.datatype).toBe('FP32');
    expect(output?.dims).toEqual([1, 2]);
    expect([...(output?.data as Float32Array)]).toEqual([0.25, -1.5]);
  });

  it('decodes bytes that sit at an odd offset of a larger buffer', () => {
    const backing = Buffer.alloc(9);
    backing.set(encodeTensor('FP32', [2], logits), 1);
    const decoded = decodeInferResponse({
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [2] }],
      raw_output_contents: [backing.subarray(1)],
    });
    expect([...(decoded.outputs.logits?.data as Float32Array)]).toEqual([0.25, -1.5]);
  });

  it('reads typed contents from servers that answer without raw bytes', () => {
    const decoded = decodeInferResponse({
      outputs: [{ name: 'logits', datatype: 'FP32', shape: [2], contents: { fp32_contents: [0.25, -1.5] } }],
    });
    expect([...(decoded.outputs.logits?.data as Float32Array)]).toEqual([0.25, -1.5]);
  });

  it.each([
    [
      'a raw entry count that differs from the outputs',
      {
        outputs: [{ name: 'a', datatype: 'FP32', shape: [1] }],
        raw_output_contents: [Buffer.alloc(4), Buffer.alloc(4)],
      },
    ],
    [
      'an unknown datatype',
      { outputs: [{ name: 'a', datatype: 'FP128', shape: [1] }], raw_output_contents: [Buffer.alloc(16)] },
    ],
    [
      'too few bytes for the shape',
      { outputs: [{ name: 'a', datatype: 'FP32', shape: [2] }], raw_output_contents: [Buffer.alloc(4)] },
    ],
  ])('blames the worker (INTERNAL) for %s', (_case, response) => {
    let error: unknown;
    try {
      decodeInferResponse(response);
    } catch (e) {
      error = e;
    }
    expect(isModelgateError(error) && error.code).toBe('INTERNAL');
    expect((error as Error).message).toContain('malformed response');
  });
});

describe('workerTimings', () => {
  it("reads the worker's queue and compute times, in ms", () => {
    expect(workerTimings({ queue_time_us: 1500, compute_time_us: 250, other: 'x' })).toEqual({
      queueMs: 1.5,
      computeMs: 0.25,
    });
  });

  it('leaves out what the server did not report', () => {
    expect(workerTimings({})).toEqual({});
    expect(workerTimings({ queue_time_us: 'soon' })).toEqual({});
  });
});
