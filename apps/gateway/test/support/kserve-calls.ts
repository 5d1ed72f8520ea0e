// KServe v2 REST routes as fast-check arbitraries: inference on the tiny BERT's token inputs
// (right, or bent), Triton's generate extension, metadata and probes.
import fc from 'fast-check';
import { bodyFrom, hostileString, segment } from './hostile-inputs.js';
import { MODELS, type RouteCall, count, flag, probability, texts } from './route-values.js';

const tensorName = fc.constantFrom('input_ids', 'attention_mask', 'token_type_ids', 'pixel_values', 'x');
const datatype = fc.constantFrom('INT64', 'INT32', 'FP32', 'FP16', 'BYTES', 'BOOL', 'UINT8', 'COMPLEX');
const dims = fc.array(fc.oneof(fc.integer({ min: -2, max: 8 }), fc.constantFrom(1e9, 2 ** 31, 2 ** 53)), {
  maxLength: 4,
});
/** A token input of the tiny BERT: right names and shape, data bent at times. */
const tokenTensor = fc.tuple(tensorName, fc.integer({ min: 1, max: 8 })).chain(([name, length]) =>
  bodyFrom(
    {
      name: fc.constant(name),
      shape: fc.oneof(fc.constant([1, length]), dims),
      datatype: fc.oneof(fc.constant('INT64'), datatype),
      data: fc.array(fc.oneof(fc.integer({ min: 0, max: 30_521 }), fc.double(), hostileString), {
        minLength: length,
        maxLength: length,
      }),
      parameters: bodyFrom({ binary_data_size: fc.integer() }),
    },
    ['name', 'shape', 'datatype', 'data'],
  ),
);
/** The tiny BERT's three token inputs, each of `length` tokens. */
const tokenInputs = fc.integer({ min: 1, max: 8 }).chain((length) =>
  fc.tuple(
    ...['input_ids', 'attention_mask', 'token_type_ids'].map((name) =>
      bodyFrom(
        {
          name: fc.constant(name),
          shape: fc.oneof({ arbitrary: fc.constant([1, length]), weight: 4 }, { arbitrary: dims, weight: 1 }),
          datatype: fc.oneof(
            { arbitrary: fc.constant('INT64'), weight: 4 },
            { arbitrary: datatype, weight: 1 },
          ),
          data: fc.array(fc.integer({ min: 0, max: 30_521 }), { minLength: length, maxLength: length }),
        },
        ['name', 'shape', 'datatype', 'data'],
      ),
    ),
  ),
);
/** A KServe v2 inference request. */
export const kserveInferBody = bodyFrom(
  {
    id: hostileString,
    inputs: fc.oneof(
      { arbitrary: tokenInputs, weight: 3 },
      { arbitrary: fc.array(tokenTensor, { maxLength: 4 }), weight: 1 },
    ),
    outputs: fc.array(
      bodyFrom({
        name: fc.constantFrom('logits', 'last_hidden_state', 'x'),
        parameters: bodyFrom({ binary_data: fc.constant(false) }),
      }),
      { maxLength: 2 },
    ),
    parameters: bodyFrom({ binary_data_output: fc.constant(false) }),
  },
  ['inputs'],
);
const generateBody = bodyFrom(
  {
    id: hostileString,
    text_input: hostileString,
    parameters: bodyFrom({ max_tokens: count, temperature: probability, stream: flag, stop: texts }),
  },
  ['text_input'],
);

/** KServe v2 REST: inference, Triton's generate extension, metadata and probes. */
export const kserveCalls: fc.Arbitrary<RouteCall> = fc
  .tuple(
    fc.oneof({ arbitrary: fc.constant('tensors'), weight: 2 }, { arbitrary: segment(MODELS), weight: 1 }),
    segment(['1', '2', '0']),
    fc.nat({ max: 11 }),
  )
  .map(([m, v, pick]): RouteCall => {
    const calls: RouteCall[] = [
      { method: 'POST', path: `/v2/models/${m}/infer`, body: kserveInferBody },
      { method: 'POST', path: `/v2/models/${m}/versions/${v}/infer`, body: kserveInferBody },
      { method: 'POST', path: `/v2/models/${m}/generate`, body: generateBody },
      { method: 'POST', path: `/v2/models/${m}/versions/${v}/generate_stream`, body: generateBody },
      { method: 'GET', path: '/v2' },
      { method: 'GET', path: '/v2/health/live' },
      { method: 'GET', path: '/v2/health/ready' },
      { method: 'GET', path: `/v2/models/${m}` },
      { method: 'GET', path: `/v2/models/${m}/ready` },
      { method: 'GET', path: `/v2/models/${m}/versions/${v}` },
      { method: 'GET', path: `/v2/models/${m}/versions/${v}/ready` },
      { method: 'POST', path: `/v2/${m}`, body: kserveInferBody },
    ];
    return calls[pick] ?? calls[0]!;
  });
