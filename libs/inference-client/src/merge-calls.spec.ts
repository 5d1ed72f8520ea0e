import { ErrorCode, isModelgateError } from '@modelgate/contracts';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type InferInput, type InferOutput } from './infer-codec.js';
import { type RowLayout, mergeInputs, mergeMember, modelRowLayout, splitOutputs } from './merge-calls.js';

const OUTPUTS = [
  { name: 'logits', dims: [-1, 2] },
  { name: 'hidden', dims: [-1, -1, 2] },
];
const TOKENS = modelRowLayout(8, ['input_ids', 'attention_mask'], OUTPUTS);

function int64(name: string, dims: number[], values: readonly (number | bigint)[]): InferInput {
  return { name, datatype: 'INT64', dims, data: BigInt64Array.from(values, (value) => BigInt(value)) };
}

/** A [rows, width] token call: its ids, and a mask of 1 on each row's first `lengths[row]` tokens. */
function tokenCall(ids: readonly (readonly bigint[])[], lengths: readonly number[]): InferInput[] {
  const width = ids[0]?.length ?? 0;
  const mask = ids.flatMap((row, r) => row.map((_, t) => (t < (lengths[r] ?? 0) ? 1 : 0)));
  return [
    int64('input_ids', [ids.length, width], ids.flat()),
    int64('attention_mask', [ids.length, width], mask),
  ];
}

/** What a row-wise model answers: logits [rows, 2] and a per-token output [rows, width, 2]. */
function fakeModel(inputs: readonly InferInput[]): Record<string, InferOutput> {
  const [ids, mask] = inputs as [InferInput, InferInput];
  const [rows = 0, width = 0] = ids.dims;
  const idData = ids.data as BigInt64Array;
  const maskData = mask.data as BigInt64Array;
  const logits = new BigInt64Array(rows * 2);
  const hidden = new Float64Array(rows * width * 2);
  for (let r = 0; r < rows; r++) {
    for (let t = 0; t < width; t++) {
      const at = r * width + t;
      if (maskData[at] === 0n) continue;
      const id = idData[at] as bigint;
      logits[r * 2] = (logits[r * 2] as bigint) + id;
      logits[r * 2 + 1] = (logits[r * 2 + 1] as bigint) + 1n;
      hidden[at * 2] = Number(id % 1000n);
      hidden[at * 2 + 1] = t + 1;
    }
  }
  return {
    logits: { datatype: 'INT64', dims: [rows, 2], data: logits },
    hidden: { datatype: 'FP64', dims: [rows, width, 2], data: hidden },
  };
}

/** Outputs as plain values (typed-array views compare like copies). */
function plain(outputs: Record<string, InferOutput>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(outputs).map(([name, output]) => [
      name,
      { datatype: output.datatype, dims: output.dims, data: Array.from(output.data as ArrayLike<unknown>) },
    ]),
  );
}

function memberOf(inputs: readonly InferInput[], layout: RowLayout = TOKENS) {
  const made = mergeMember('bert', inputs, layout);
  if (made === undefined) throw new Error('expected the call to merge');
  return made;
}

describe('modelRowLayout', () => {
  it('pads every input and cuts the outputs with a token axis when the model takes an attention_mask', () => {
    expect(modelRowLayout(16, ['input_ids', 'attention_mask', 'token_type_ids'], OUTPUTS)).toEqual({
      maxRows: 16,
      sequenceInputs: ['input_ids', 'attention_mask', 'token_type_ids'],
      sequenceOutputs: { hidden: 1 },
    });
  });

  it('does not merge a model with a BYTES output (its answers do not split)', () => {
    const outputs = [...OUTPUTS, { name: 'label', datatype: 'BYTES', dims: [-1] }];
    expect(modelRowLayout(16, ['input_ids', 'attention_mask'], outputs)).toEqual({ maxRows: 1 });
  });

  it('gives only maxRows without an attention_mask or without declared outputs', () => {
    expect(modelRowLayout(4, ['pixel_values'], OUTPUTS)).toEqual({ maxRows: 4 });
    expect(modelRowLayout(4, ['input_ids', 'attention_mask'], [])).toEqual({ maxRows: 4 });
  });
});

describe('mergeMember', () => {
  it('refuses BYTES inputs', () => {
    const text: InferInput = { name: 'text', datatype: 'BYTES', dims: [1], data: ['hello'] };
    expect(mergeMember('m', [text], { maxRows: 8 })).toBeUndefined();
  });

  it('keys sequence inputs without their token width, and records rows and tokens', () => {
    const short = memberOf(tokenCall([[1n, 2n]], [2]));
    const long = memberOf(tokenCall([[1n, 2n, 3n, 4n, 5n]], [5]));
    expect(short.key).toBe(long.key);
    expect(short.member).toMatchObject({ rows: 1, tokens: 2 });
    expect(long.member).toMatchObject({ rows: 1, tokens: 5 });
  });

  it('keys token lengths by factors of two (one key up to 8 tokens)', () => {
    const keyOf = (width: number) =>
      memberOf(tokenCall([Array.from({ length: width }, () => 5n)], [width])).key;
    expect(keyOf(1)).toBe(keyOf(8));
    expect(keyOf(9)).toBe(keyOf(16));
    expect(keyOf(17)).toBe(keyOf(32));
    expect(new Set([keyOf(8), keyOf(9), keyOf(17), keyOf(33)]).size).toBe(4);
  });

  it('keys the other dims, the datatypes and the prefix', () => {
    const { key } = memberOf(tokenCall([[1n, 2n]], [2]));
    const widths = [2, 5].map((width) =>
      mergeMember('m', [int64('x', [1, width], Array(width).fill(0))], TOKENS),
    );
    expect(widths[0]?.key).not.toBe(widths[1]?.key);
    expect(widths[0]?.member.tokens).toBeUndefined();
    const fp32 = tokenCall([[1n, 2n]], [2]).map((input) => ({
      ...input,
      datatype: 'INT32',
      data: Int32Array.of(1, 2),
    }));
    expect(memberOf(fp32 as InferInput[]).key).not.toBe(key);
    expect(mergeMember('other', tokenCall([[1n, 2n]], [2]), TOKENS)?.key).not.toBe(key);
    // Without sequence inputs, a different token width does not stack.
    const plainLayout = { maxRows: 8 };
    expect(memberOf(tokenCall([[1n]], [1]), plainLayout).key).not.toBe(
      memberOf(tokenCall([[1n, 2n]], [2]), plainLayout).key,
    );
  });

  it('refuses inputs that disagree on rows or token widths, and calls without rows', () => {
    const [ids, mask] = tokenCall([[1n, 2n]], [2]) as [InferInput, InferInput];
    expect(mergeMember('m', [ids, int64('attention_mask', [2, 2], [1, 1, 1, 1])], TOKENS)).toBeUndefined();
    expect(mergeMember('m', [ids, int64('attention_mask', [1, 3], [1, 1, 0])], TOKENS)).toBeUndefined();
    expect(mergeMember('m', [ids, int64('x', [2, 4], Array(8).fill(0))], { maxRows: 8 })).toBeUndefined();
    expect(mergeMember('m', [int64('input_ids', [1, 2, 1], [1, 2]), mask], TOKENS)).toBeUndefined();
    expect(
      mergeMember('m', [int64('input_ids', [0, 2], []), int64('attention_mask', [0, 2], [])], TOKENS),
    ).toBeUndefined();
    expect(mergeMember('m', [], TOKENS)).toBeUndefined();
  });
});

describe('mergeInputs', () => {
  it('right-pads sequence inputs to the longest member and records where each member sits', () => {
    const a = memberOf(tokenCall([[7n, 8n]], [2])).member;
    const b = memberOf(
      tokenCall(
        [
          [1n, 2n, 3n],
          [4n, 5n, 6n],
        ],
        [3, 1],
      ),
    ).member;
    const { inputs, layout } = mergeInputs([a, b]);
    expect(inputs.map((input) => [input.name, input.datatype, input.dims])).toEqual([
      ['input_ids', 'INT64', [3, 3]],
      ['attention_mask', 'INT64', [3, 3]],
    ]);
    expect([...(inputs[0]?.data as BigInt64Array)]).toEqual([7n, 8n, 0n, 1n, 2n, 3n, 4n, 5n, 6n]);
    expect([...(inputs[1]?.data as BigInt64Array)]).toEqual([1n, 1n, 0n, 1n, 1n, 1n, 1n, 0n, 0n]);
    expect(layout).toEqual({
      batch: 3,
      sequenceLength: 3,
      requests: [
        { firstRow: 0, rows: 1, sequenceLength: 2 },
        { firstRow: 1, rows: 2, sequenceLength: 3 },
      ],
    });
  });

  it('stacks calls without sequence inputs as they are', () => {
    const layout: RowLayout = { maxRows: 8 };
    const a = memberOf([{ name: 'x', datatype: 'FP32', dims: [1, 2], data: Float32Array.of(1, 2) }], layout);
    const b = memberOf([{ name: 'x', datatype: 'FP32', dims: [1, 2], data: Float32Array.of(3, 4) }], layout);
    const merged = mergeInputs([a.member, b.member]);
    expect(merged.inputs[0]).toMatchObject({ name: 'x', datatype: 'FP32', dims: [2, 2] });
    expect([...(merged.inputs[0]?.data as Float32Array)]).toEqual([1, 2, 3, 4]);
    expect(merged.layout).toEqual({
      batch: 2,
      requests: [
        { firstRow: 0, rows: 1 },
        { firstRow: 1, rows: 1 },
      ],
    });
  });

  it('pads only the sequence inputs of a call that also has fixed-size ones', () => {
    const layout: RowLayout = { maxRows: 8, sequenceInputs: ['input_ids'] };
    const call = (ids: bigint[]) => [
      int64('input_ids', [1, ids.length], ids),
      int64('extra', [1, 4], [9, 9, 9, 9]),
    ];
    const a = memberOf(call([1n]), layout);
    const b = memberOf(call([1n, 2n, 3n]), layout);
    expect(a.key).toBe(b.key);
    const { inputs } = mergeInputs([a.member, b.member]);
    expect(inputs.map((input) => input.dims)).toEqual([
      [2, 3],
      [2, 4],
    ]);
    expect([...(inputs[1]?.data as BigInt64Array)]).toEqual(Array(8).fill(9n));
  });

  it('throws without members', () => {
    expect(() => mergeInputs([])).toThrow('no calls to merge');
  });
});

describe('splitOutputs', () => {
  const rowsArb = fc.integer({ min: 1, max: 3 });
  const callArb = fc.tuple(rowsArb, fc.integer({ min: 1, max: 8 })).chain(([rows, width]) =>
    fc.tuple(
      fc.array(
        fc.array(fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n }), { minLength: width, maxLength: width }),
        {
          minLength: rows,
          maxLength: rows,
        },
      ),
      fc.array(fc.integer({ min: 1, max: width }), { minLength: rows, maxLength: rows }),
    ),
  );

  it('gives each member of a merge exactly what the model gives it alone', () => {
    fc.assert(
      fc.property(fc.array(callArb, { minLength: 1, maxLength: 4 }), (calls) => {
        const made = calls.map(([ids, lengths]) => memberOf(tokenCall(ids, lengths)));
        expect(new Set(made.map((m) => m.key)).size).toBe(1);
        const merged = mergeInputs(made.map((m) => m.member));
        const parts = splitOutputs(fakeModel(merged.inputs), merged.layout, TOKENS.sequenceOutputs);
        expect(parts.map(plain)).toEqual(made.map((m) => plain(fakeModel(m.member.inputs))));
      }),
    );
  });

  it('refuses BYTES outputs and outputs that do not match the layout', () => {
    const { layout } = mergeInputs([
      memberOf(tokenCall([[1n]], [1])).member,
      memberOf(tokenCall([[2n]], [1])).member,
    ]);
    const refusal = (outputs: Record<string, InferOutput>) => {
      try {
        splitOutputs(outputs, layout, TOKENS.sequenceOutputs);
      } catch (error) {
        return isModelgateError(error) ? error.code : error;
      }
      return undefined;
    };
    expect(
      refusal({ text: { datatype: 'BYTES', dims: [2], data: [Uint8Array.of(97), Uint8Array.of(98)] } }),
    ).toBe(ErrorCode.INVALID_ARGUMENT);
    expect(refusal({ logits: { datatype: 'FP32', dims: [3, 2], data: new Float32Array(6) } })).toBe(
      ErrorCode.INVALID_ARGUMENT,
    );
  });
});
