// fast-check arbitraries for whole Open Inference Protocol calls to the gateway's gRPC face: a
// ModelInferRequest for a model or endpoint it serves (inputs from hostile-tensors.ts), often
// bent at the request level (unknown, empty or huge names and versions, inputs missing,
// duplicated or unknown, raw_input_contents of the wrong count, parameters of the wrong type or
// by the thousand, requested outputs that do not exist), its bytes sometimes mangled on the wire,
// and the call's metadata, hostile or not.
import { Metadata } from '@grpc/grpc-js';
import fc from 'fast-check';
import { encodeMessage } from './grpc-fuzz-client.js';
import { hostileHeaders, hostileString, sometimes } from './hostile-inputs.js';
import { type HostileInput, type InputTensor, type TensorMeta, hostileInput } from './hostile-tensors.js';

/** A model or endpoint as its ModelMetadata describes it. */
export interface OipTarget {
  name: string;
  inputs: TensorMeta[];
  outputs: TensorMeta[];
}

/** A ModelInferRequest as protobufjs encodes it. */
export interface InferRequestMessage {
  model_name?: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, object>;
  inputs: InputTensor[];
  outputs?: { name: string; parameters?: Record<string, object> }[];
  raw_input_contents?: Uint8Array[];
}

/** An InferParameter of any kind, or none set: the values request parameters take. */
const parameterValue: fc.Arbitrary<object> = fc.oneof(
  fc.boolean().map((bool_param) => ({ bool_param })),
  fc.integer({ min: -5, max: 10 }).map((int64_param) => ({ int64_param })),
  fc.constantFrom('-9223372036854775808', '9223372036854775807').map((int64_param) => ({ int64_param })),
  fc.constantFrom('0', '18446744073709551615', '9007199254740993').map((uint64_param) => ({ uint64_param })),
  fc.double().map((double_param) => ({ double_param })),
  hostileString.map((string_param) => ({ string_param })),
  fc.constant({}),
);

/** Keys the endpoints read (top_k, max_new_tokens, timeout…) and keys no one reads. */
const parameterKey = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      'top_k',
      'max_new_tokens',
      'timeout',
      'temperature',
      'truncate',
      'top_n',
      'stop',
    ),
    weight: 4,
  },
  { arbitrary: fc.constantFrom('__proto__', 'constructor', '', 'x'.repeat(300)), weight: 1 },
  { arbitrary: hostileString, weight: 1 },
);

/** An object of `entries`, defined rather than assigned (`__proto__` is then a key). */
function objectOf<T>(entries: readonly (readonly [string, T])[]): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of entries)
    Object.defineProperty(out, key, { value, enumerable: true, configurable: true });
  return out;
}

/** Request parameters: mostly plausible (small top_k, max_new_tokens), else of any type, or thousands. */
const requestParameters: fc.Arbitrary<Record<string, object> | undefined> = fc.oneof(
  { arbitrary: fc.constant(undefined), weight: 6 },
  { arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ({ top_k: { int64_param: n } })), weight: 1 },
  {
    arbitrary: fc.integer({ min: 1, max: 3 }).map((n) => ({ max_new_tokens: { int64_param: n } })),
    weight: 2,
  },
  { arbitrary: fc.array(fc.tuple(parameterKey, parameterValue), { maxLength: 4 }).map(objectOf), weight: 3 },
  {
    arbitrary: fc
      .integer({ min: 100, max: 5000 })
      .map((n) => objectOf(Array.from({ length: n }, (_, i) => [`p${i}`, { int64_param: i }] as const))),
    weight: 1,
  },
);

/** A name for a model or version field: the right one mostly, else empty, unknown, huge or hostile. */
function nameOr(right: string | undefined, others: readonly string[]): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { arbitrary: fc.constant(right), weight: 12 },
    { arbitrary: fc.constantFrom('', 'nope', '0', '-1', '01', ' 1', ...others), weight: 2 },
    { arbitrary: fc.integer({ min: 1_000, max: 200_000 }).map((n) => 'm'.repeat(n)), weight: 1 },
    { arbitrary: hostileString, weight: 1 },
  );
}

const REQUEST_BENDS = [
  'drop',
  'duplicate',
  'unknown-input',
  'raw-count',
  'outputs',
  'id',
  'no-inputs',
] as const;

/** A ModelInferRequest for one of `targets`, mostly plausible, often bent. */
export function inferRequests(
  targets: readonly OipTarget[],
  images: Buffer[],
): fc.Arbitrary<InferRequestMessage> {
  const names = targets.map((target) => target.name);
  return fc.constantFrom(...targets).chain((target) =>
    fc
      .record({
        inputs: fc.tuple(...target.inputs.map((meta) => hostileInput(meta, images))),
        model: nameOr(target.name, names),
        version: nameOr(undefined, ['1', '2', '999']),
        parameters: requestParameters,
        bend: fc.oneof(
          { arbitrary: fc.constant(undefined), weight: REQUEST_BENDS.length * 2 },
          { arbitrary: fc.constantFrom(...REQUEST_BENDS), weight: REQUEST_BENDS.length },
        ),
        text: hostileString,
        output: fc.oneof(
          fc.constantFrom(...target.outputs.map((output) => output.name), 'nope', ''),
          hostileString,
        ),
        pick: fc.nat(),
      })
      .map(({ inputs, model, version, parameters, bend, text, output, pick }) => {
        let given: HostileInput[] = [...inputs];
        const request: InferRequestMessage = { inputs: [] };
        if (model !== undefined) request.model_name = model;
        if (version !== undefined) request.model_version = version;
        if (parameters !== undefined) request.parameters = parameters;
        const chosen = given[pick % Math.max(given.length, 1)];
        if (bend === 'drop') given = given.filter((input) => input !== chosen);
        if (bend === 'duplicate' && chosen) given.push(chosen);
        if (bend === 'unknown-input' && chosen)
          given.push({ ...chosen, tensor: { ...chosen.tensor, name: text } });
        if (bend === 'no-inputs') given = [];
        if (bend === 'outputs')
          request.outputs = [
            { name: output },
            { name: output, parameters: { binary_data: { bool_param: true } } },
          ];
        if (bend === 'id') request.id = text;
        request.inputs = given.map((input) => input.tensor);
        // raw_input_contents is all or nothing: a request with some typed inputs sends none.
        const raw = given.every((input) => input.raw !== undefined) ? given.map((input) => input.raw!) : [];
        if (bend === 'raw-count' && raw.length > 0 && pick % 2 === 0) raw.pop();
        else if (bend === 'raw-count') raw.push(new Uint8Array(4));
        if (raw.length > 0) request.raw_input_contents = raw;
        return request;
      }),
  );
}

/**
 * A message's bytes as sent: mostly as encoded, else truncated, merged with another encoding of
 * it (each field given twice), with an unknown field, or replaced by bytes that are no message.
 */
export function wireBytes(type: string, message: fc.Arbitrary<object>): fc.Arbitrary<Uint8Array> {
  const encoded = message.map((m) => encodeMessage(type, m));
  return fc.oneof(
    { arbitrary: encoded, weight: 20 },
    {
      arbitrary: fc
        .tuple(encoded, fc.double({ min: 0, max: 1, noNaN: true }))
        .map(([b, f]) => b.subarray(0, Math.floor(b.length * f))),
      weight: 1,
    },
    { arbitrary: encoded.map((b) => Buffer.concat([b, b])), weight: 1 },
    // Field 99, a varint: unknown to the schema, to be skipped.
    { arbitrary: encoded.map((b) => Buffer.concat([b, Buffer.from([0x98, 0x06, 0x01])])), weight: 1 },
    { arbitrary: fc.uint8Array({ minLength: 1, maxLength: 200 }), weight: 1 },
  );
}

/** Keys grpc-js lets a client send that the gateway might read, and some it should ignore. */
const binaryValue = fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes));

/** Call metadata: none mostly; else the gateway's headers with hostile values, binary keys, a huge value. */
export const hostileMetadata: fc.Arbitrary<Metadata> = fc
  .record({
    headers: fc.oneof({ arbitrary: fc.constant({}), weight: 2 }, { arbitrary: hostileHeaders, weight: 1 }),
    binary: sometimes(
      fc.tuple(fc.constantFrom('x-request-id-bin', 'trace-bin', 'x-modelgate-route-key-bin'), binaryValue),
      6,
    ),
    huge: sometimes(fc.integer({ min: 1_000, max: 6_000 }), 10),
  })
  .map(({ headers, binary, huge }) => {
    const metadata = new Metadata();
    for (const [key, value] of Object.entries(headers)) metadata.set(key, value);
    if (binary !== undefined) metadata.set(binary[0], binary[1]);
    if (huge !== undefined) metadata.set('x-request-id', 'r'.repeat(huge));
    return metadata;
  });
