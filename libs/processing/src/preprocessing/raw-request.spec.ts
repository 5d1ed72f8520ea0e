import { ErrorCode, type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { parseRawInferRequest } from './raw-request.js';

const DECLARED: TensorMetadata[] = [
  { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
  { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
];

function errorOf(body: unknown, options = {}): { code: string; field: string | undefined; message: string } {
  try {
    parseRawInferRequest(body, options);
  } catch (error) {
    const { code, details, message } = error as {
      code: string;
      details: { field?: string };
      message: string;
    };
    return { code, field: details.field, message };
  }
  throw new Error('expected the body to be refused');
}

describe('parseRawInferRequest', () => {
  it('decodes KServe v2 JSON tensors, flat or nested, into typed arrays', () => {
    const request = parseRawInferRequest(
      {
        id: 'r1',
        inputs: [
          { name: 'input_ids', datatype: 'INT64', shape: [1, 3], data: [[101, 7592, 102]] },
          { name: 'attention_mask', datatype: 'INT64', shape: [1, 3], data: [1, 1, 1] },
        ],
        outputs: [{ name: 'logits' }],
      },
      { inputs: DECLARED },
    );
    expect(request.id).toBe('r1');
    expect(request.outputs).toEqual(['logits']);
    expect(request.inputs[0]).toEqual({
      name: 'input_ids',
      datatype: 'INT64',
      shape: [1, 3],
      data: BigInt64Array.from([101n, 7592n, 102n]),
    });
  });

  it('refuses a float past its type’s range, which would become Infinity, and an output asked for twice', () => {
    const float = (datatype: string, value: number) =>
      errorOf({ inputs: [{ name: 'x', datatype, shape: [2], data: [1, value] }] });
    expect(float('FP32', 3.5e38)).toEqual({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'inputs[0].data',
      message: 'inputs[0].data: element 1 (3.5e+38) is beyond the FP32 range',
    });
    expect(float('FP16', -70000).message).toBe('inputs[0].data: element 1 (-70000) is beyond the FP16 range');
    // The largest finite values (and those that round to them) are kept.
    const { inputs } = parseRawInferRequest({
      inputs: [
        { name: 'x', datatype: 'FP32', shape: [1], data: [3.4028235e38] },
        { name: 'h', datatype: 'FP16', shape: [1], data: [65504] },
      ],
    });
    expect(Number.isFinite(inputs[0]!.data[0] as number)).toBe(true);
    expect(inputs[1]!.data).toEqual(Uint16Array.from([0x7bff]));
    const twice = errorOf({
      inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }],
      outputs: [{ name: 'logits' }, { name: 'logits' }],
    });
    expect(twice).toMatchObject({
      field: 'outputs[1].name',
      message: "outputs[1].name: 'logits' is asked for twice",
    });
  });

  it('decodes FP32, BOOL, FP16 and BYTES', () => {
    const { inputs } = parseRawInferRequest({
      inputs: [
        { name: 'x', datatype: 'FP32', shape: [2], data: [0.5, -1] },
        { name: 'b', datatype: 'BOOL', shape: [2], data: [true, false] },
        { name: 'h', datatype: 'FP16', shape: [1], data: [1] },
        { name: 's', datatype: 'BYTES', shape: [1], data: ['hé'] },
      ],
    });
    expect(inputs.map((t) => t.data)).toEqual([
      Float32Array.from([0.5, -1]),
      Uint8Array.from([1, 0]),
      Uint16Array.from([0x3c00]),
      [new TextEncoder().encode('hé')],
    ]);
  });

  it.each([
    [{ inputs: [] }, 'inputs', /at least one tensor/],
    [
      { inputs: [{ name: 'x', datatype: 'FP8', shape: [1], data: [1] }] },
      'inputs[0].datatype',
      /must be one of/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [2], data: [1] }] },
      'inputs[0].data',
      /needs 2 elements, got 1/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'INT8', shape: [1], data: [300] }] },
      'inputs[0].data',
      /not in \[-128, 127\]/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [[[1]]] }] },
      'inputs[0].data',
      /nested deeper/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [-1], data: [] }] },
      'inputs[0].shape[0]',
      /non-negative/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }], extra: 1 },
      'extra',
      /not a known field/,
    ],
    [
      { inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1], parameter: {} }] },
      'inputs[0].parameter',
      /not a known field/,
    ],
    [
      {
        inputs: [{ name: 'x', datatype: 'FP32', shape: [1], data: [1] }],
        outputs: [{ name: 'y', binary_data: false }],
      },
      'outputs[0].binary_data',
      /not a known field/,
    ],
  ])('answers 400 naming the field for %j', (body, field, message) => {
    const error = errorOf(body);
    expect(error).toMatchObject({ code: ErrorCode.INVALID_ARGUMENT, field });
    expect(error.message).toMatch(message);
  });

  it('checks names, datatypes and fixed dims against the model declaration', () => {
    const ids = { name: 'input_ids', datatype: 'INT64', shape: [1, 1], data: [1] };
    const mask = { name: 'attention_mask', datatype: 'INT64', shape: [1, 1], data: [1] };
    expect(errorOf({ inputs: [ids] }, { inputs: DECLARED }).message).toMatch(
      /missing model input\(s\) attention_mask/,
    );
    expect(errorOf({ inputs: [ids, mask, { ...ids, name: 'extra' }] }, { inputs: DECLARED }).message).toMatch(
      /no input named 'extra'/,
    );
    expect(errorOf({ inputs: [{ ...ids, datatype: 'INT32' }, mask] }, { inputs: DECLARED }).message).toMatch(
      /must be INT64, got INT32/,
    );
    expect(
      errorOf({ inputs: [{ ...ids, shape: [1], data: [1] }, mask] }, { inputs: DECLARED }).message,
    ).toMatch(/the model takes \[-1,-1\]/);
    expect(errorOf({ inputs: [ids, ids] }).message).toMatch(/given twice/);
  });

  it('answers 413 past maxElements', () => {
    const body = { inputs: [{ name: 'x', datatype: 'FP32', shape: [3], data: [1, 2, 3] }] };
    expect(errorOf(body, { maxElements: 2 })).toMatchObject({
      code: ErrorCode.PAYLOAD_TOO_LARGE,
      field: 'inputs',
    });
  });

  it("takes Triton's timeout parameter (µs) as the deadline, and refuses every parameter it would not act on", () => {
    const x = { name: 'x', datatype: 'FP32', shape: [1], data: [1] };
    expect(parseRawInferRequest({ parameters: { timeout: 250_000 }, inputs: [x] }).timeoutMs).toBe(250);
    expect(parseRawInferRequest({ inputs: [x] }).timeoutMs).toBeUndefined();
    // JSON outputs, said explicitly, are what is served.
    const json = parseRawInferRequest({
      parameters: { binary_data_output: false },
      inputs: [{ ...x, parameters: {} }],
      outputs: [{ name: 'y', parameters: { binary_data: false } }],
    });
    expect(json.outputs).toEqual(['y']);
    expect(errorOf({ parameters: { priority: 1 }, inputs: [x] })).toMatchObject({
      code: ErrorCode.INVALID_ARGUMENT,
      field: 'parameters.priority',
    });
    expect(errorOf({ parameters: { timeout: 0 }, inputs: [x] }).message).toMatch(/parameters\.timeout/);
    expect(errorOf({ parameters: { binary_data_output: true }, inputs: [x] }).message).toMatch(
      /parameters\.binary_data_output: binary tensor data \(Triton's binary extension\) is not served/,
    );
    expect(
      errorOf({ inputs: [x], outputs: [{ name: 'y', parameters: { binary_data: true } }] }).message,
    ).toMatch(/outputs\[0\]\.parameters\.binary_data: binary tensor data/);
    expect(errorOf({ inputs: [{ ...x, parameters: { binary_data_size: 4 } }] }).message).toMatch(
      /inputs\[0\]\.parameters\.binary_data_size: is not a known field/,
    );
  });
});
