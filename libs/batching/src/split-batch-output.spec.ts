import { ErrorCode } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type SequenceInputs, packTokenBatch } from './pack-token-batch.js';
import { sequenceAxisOf, splitBatchOutput } from './split-batch-output.js';

const HIDDEN = 4;
const LABELS = 3;

/**
 * A stand-in encoder that, like a transformer, respects the attention mask: each position's
 * output depends on its own token and on the masked mean of its row, never on padding.
 * Returns last_hidden_state [b, s, HIDDEN] and logits [b, LABELS].
 */
function runFakeEncoder(inputs: Readonly<Record<string, BigInt64Array>>, batch: number, seq: number) {
  const ids = inputs.input_ids ?? new BigInt64Array(batch * seq);
  const mask = inputs.attention_mask ?? new BigInt64Array(batch * seq);
  const types = inputs.token_type_ids ?? new BigInt64Array(batch * seq);
  const hidden = new Float32Array(batch * seq * HIDDEN);
  const logits = new Float32Array(batch * LABELS);
  for (let b = 0; b < batch; b++) {
    let sum = 0;
    let count = 0;
    for (let t = 0; t < seq; t++) {
      const m = Number(mask[b * seq + t]);
      sum += m * Number(ids[b * seq + t]);
      count += m;
    }
    const context = sum / count;
    for (let t = 0; t < seq; t++) {
      for (let k = 0; k < HIDDEN; k++) {
        hidden[(b * seq + t) * HIDDEN + k] =
          Number(ids[b * seq + t]) * (k + 1) + Number(types[b * seq + t]) + 0.5 * context;
      }
    }
    for (let k = 0; k < LABELS; k++) logits[b * LABELS + k] = context * (k + 1) - count;
  }
  return { hidden, logits };
}

/** Pack → run → split, for any group of requests. */
function inferBatch(requests: readonly SequenceInputs[]) {
  const packed = packTokenBatch(requests);
  const { hidden, logits } = runFakeEncoder(packed.inputs, packed.batch, packed.sequenceLength);
  return {
    hidden: splitBatchOutput(hidden, [packed.batch, packed.sequenceLength, HIDDEN], packed.layout, {
      sequenceAxis: 1,
    }),
    logits: splitBatchOutput(logits, [packed.batch, LABELS], packed.layout),
  };
}

const encoded = (ids: number[]): SequenceInputs => ({
  input_ids: Int32Array.from(ids),
  attention_mask: ids.map(() => 1),
  token_type_ids: ids.map((_, i) => (i > 1 ? 1 : 0)),
});

describe('splitBatchOutput', () => {
  it('gives every request the same [b, n] and [b, s, h] outputs batched as unbatched', () => {
    const requests = [
      encoded([101, 2023, 102]),
      encoded([101, 7, 8, 9, 10, 11, 102]),
      encoded([101, 5, 102, 6, 102]),
      {
        input_ids: { data: [101, 3, 102, 101, 4, 4, 4, 102], dims: [2, 4] },
        attention_mask: { data: [1, 1, 1, 0, 1, 1, 1, 1], dims: [2, 4] },
        token_type_ids: { data: new Array<number>(8).fill(0), dims: [2, 4] },
      },
    ];
    const batched = inferBatch(requests);
    requests.forEach((request, index) => {
      const alone = inferBatch([request]);
      expect(batched.hidden[index]).toEqual(alone.hidden[0]);
      expect(batched.logits[index]).toEqual(alone.logits[0]);
    });
    expect(batched.hidden.map((t) => t.dims)).toEqual([
      [1, 3, HIDDEN],
      [1, 7, HIDDEN],
      [1, 5, HIDDEN],
      [2, 4, HIDDEN],
    ]);
    expect(batched.logits.map((t) => t.dims)).toEqual([
      [1, LABELS],
      [1, LABELS],
      [1, LABELS],
      [2, LABELS],
    ]);
  });

  it('cuts the sequence axis wherever it is, e.g. [b, heads, s, d]', () => {
    const layout = {
      batch: 2,
      sequenceLength: 3,
      requests: [
        { firstRow: 0, rows: 1, sequenceLength: 2 },
        { firstRow: 1, rows: 1, sequenceLength: 3 },
      ],
    };
    const data = Int32Array.from({ length: 2 * 2 * 3 * 2 }, (_, i) => i); // [2, 2, 3, 2]
    const [first, second] = splitBatchOutput(data, [2, 2, 3, 2], layout, { sequenceAxis: 2 });
    expect(first).toEqual({ data: Int32Array.from([0, 1, 2, 3, 6, 7, 8, 9]), dims: [1, 2, 2, 2] });
    expect(second?.dims).toEqual([1, 2, 3, 2]);
    expect(Array.from(second?.data ?? [])).toEqual(Array.from({ length: 12 }, (_, i) => 12 + i));
  });

  it('refuses an output whose batch or sequence dims do not match the layout', () => {
    const layout = { batch: 2, sequenceLength: 4, requests: [{ firstRow: 0, rows: 2, sequenceLength: 4 }] };
    expect(() => splitBatchOutput(new Float32Array(6), [3, 2], layout)).toThrow(
      expect.objectContaining({ code: ErrorCode.INVALID_ARGUMENT }),
    );
    expect(() =>
      splitBatchOutput(new Float32Array(6), [2, 3], layout, { sequenceAxis: 1, name: 'logits' }),
    ).toThrow(/logits axis 1 is 3/);
  });
});

describe('sequenceAxisOf', () => {
  it('finds the first dynamic dim after the batch axis', () => {
    expect(sequenceAxisOf([-1, -1, 384])).toBe(1);
    expect(sequenceAxisOf([-1, 2])).toBeUndefined();
    expect(sequenceAxisOf([-1, 12, -1, 64])).toBe(2);
  });
});
