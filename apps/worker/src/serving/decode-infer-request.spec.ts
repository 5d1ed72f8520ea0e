import { describe, expect, it } from 'vitest';
import { type TensorDeclaration } from '../model-loading/onnx-session.adapter.js';
import { decodeInferRequest } from './decode-infer-request.js';
import { type OipInferRequest as ModelInferRequestMessage } from '@modelgate/contracts';

const INPUTS: TensorDeclaration[] = [{ name: 'input_ids', datatype: 'INT64', dims: [-1, -1] }];
const OUTPUTS: TensorDeclaration[] = [{ name: 'logits', datatype: 'FP32', dims: [-1, 2] }];

function request(extra: Partial<ModelInferRequestMessage> = {}): ModelInferRequestMessage {
  return {
    model_name: 'sst2',
    inputs: [
      {
        name: 'input_ids',
        datatype: 'INT64',
        shape: ['1', '3'],
        contents: { int64_contents: ['1', '2', '3'] },
      },
    ],
    ...extra,
  };
}

const decode = (message: ModelInferRequestMessage) => decodeInferRequest(message, INPUTS, OUTPUTS);

describe('decodeInferRequest', () => {
  it('decodes typed contents and takes no time limit of its own by default', () => {
    const decoded = decode(request());
    expect(decoded.rows).toBe(1);
    expect(Array.from(decoded.inputs.input_ids?.data as BigInt64Array)).toEqual([1n, 2n, 3n]);
    expect(decoded.timeoutMicros).toBeUndefined();
  });

  it('refuses a negative token id, which the embedding lookup would take from the table’s end', () => {
    const negative = request({
      inputs: [
        {
          name: 'input_ids',
          datatype: 'INT64',
          shape: ['1', '3'],
          contents: { int64_contents: ['101', '-5', '102'] },
        },
      ],
    });
    expect(() => decode(negative)).toThrow(
      "input 'input_ids' has -5 at element 1: ids index a table and must be 0 or more",
    );
  });

  it('refuses a negative id sent as raw little-endian int64 bytes, naming its value and element', () => {
    const ids = BigInt64Array.from([101n, 7n, -(2n ** 40n), -1n]);
    const raw = request({
      inputs: [{ name: 'input_ids', datatype: 'INT64', shape: ['1', '4'] }],
      raw_input_contents: [Buffer.from(ids.buffer)],
    });
    expect(() => decode(raw)).toThrow(
      "input 'input_ids' has -1099511627776 at element 2: ids index a table and must be 0 or more",
    );
    // The largest int64 has its high word's sign bit clear: taken.
    const largest = request({
      inputs: [{ name: 'input_ids', datatype: 'INT64', shape: ['1', '2'] }],
      raw_input_contents: [Buffer.from(BigInt64Array.from([0n, 2n ** 63n - 1n]).buffer)],
    });
    expect(Array.from(decode(largest).inputs.input_ids?.data as BigInt64Array)).toEqual([0n, 2n ** 63n - 1n]);
  });

  it("takes Triton's timeout parameter, in microseconds, as int64 or uint64", () => {
    const int64 = request({
      parameters: { timeout: { int64_param: '250000', parameter_choice: 'int64_param' } },
    });
    expect(decode(int64).timeoutMicros).toBe(250_000);
    const uint64 = request({
      parameters: { timeout: { uint64_param: 5, parameter_choice: 'uint64_param' } },
    });
    expect(decode(uint64).timeoutMicros).toBe(5);
    for (const timeout of [{ int64_param: '0' }, { string_param: '10' }, { double_param: 1.5 }])
      expect(() => decode(request({ parameters: { timeout } }))).toThrow(
        "request parameter 'timeout' must be a positive int64_param, in microseconds",
      );
  });

  it('refuses request parameters it does not act on, naming them', () => {
    const message = request({
      parameters: { priority: { int64_param: '1' }, sequence_id: { int64_param: '7' } },
    });
    expect(() => decode(message)).toThrow(
      "request parameters 'priority', 'sequence_id' are not taken; the only one is 'timeout' (µs, int64_param)",
    );
  });

  it('refuses parameters on an input or a requested output', () => {
    const onInput = request();
    onInput.inputs[0]!.parameters = { shared_memory_region: { string_param: 'r' } };
    expect(() => decode(onInput)).toThrow(
      "input 'input_ids': parameters are not taken (got 'shared_memory_region')",
    );
    const onOutput = request({
      outputs: [{ name: 'logits', parameters: { classification: { int64_param: '2' } } }],
    });
    expect(() => decode(onOutput)).toThrow(
      "output 'logits': parameters are not taken (got 'classification')",
    );
  });

  it('refuses typed contents beside raw_input_contents, which would win over them', () => {
    const bytes = new Uint8Array(new BigInt64Array([4n, 5n, 6n]).buffer);
    const both = request({ raw_input_contents: [bytes] });
    expect(() => decode(both)).toThrow(
      "input 'input_ids' has contents while the request sends raw_input_contents; send every input one way",
    );
    const rawOnly = request({ raw_input_contents: [bytes] });
    rawOnly.inputs[0]!.contents = { int64_contents: [] };
    expect(Array.from(decode(rawOnly).inputs.input_ids?.data as BigInt64Array)).toEqual([4n, 5n, 6n]);
  });
});
