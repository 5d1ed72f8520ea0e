import { PAST_KEY_VALUES_INPUT, PAST_SEQUENCE_AXIS, PIXEL_VALUES } from '../config/export-names.js';

/** Length of the warm-up request's dynamic non-batch dims. */
export const WARM_UP_SEQUENCE = 8;

/** A made-up input of the warm-up request. */
export interface WarmUpTensor {
  datatype: string;
  dims: number[];
  data: BigInt64Array | Int32Array | Float32Array | Float64Array | Uint8Array;
}

/**
 * One small request shaped like a model's inputs, run once when a model is prepared (registry)
 * and on each of its sessions when loaded (worker): batch 1, dynamic dims WARM_UP_SEQUENCE long;
 * `input_ids` start with [CLS]-like 101, masks are all ones, everything else zeros (a merged
 * decoder's use_cache_branch: false). A decoder's cache starts empty (past sequence 0), as a
 * generation's first step does. `imageDims` ([C, H, W], -1 where unknown) sizes a `pixel_values`
 * input whose image dims are dynamic: an image graph cannot run on 8×8 pixels. Undefined when an
 * input cannot be made up (strings, half floats).
 */
export function warmUpTensors(
  inputs: readonly { readonly name: string; readonly datatype: string; readonly dims: readonly number[] }[],
  imageDims?: readonly number[],
): Record<string, WarmUpTensor> | undefined {
  const tensors: Record<string, WarmUpTensor> = {};
  for (const input of inputs) {
    const past = PAST_KEY_VALUES_INPUT.test(input.name);
    const known = input.name === PIXEL_VALUES ? [-1, ...(imageDims ?? [])] : [];
    const dims = input.dims.map((dim, axis) => {
      if (dim >= 0) return dim;
      const given = known[axis] ?? -1;
      if (given >= 0) return given;
      if (axis === 0) return 1;
      return past && axis === PAST_SEQUENCE_AXIS ? 0 : WARM_UP_SEQUENCE;
    });
    const fill = input.name.includes('mask') ? 1 : input.name === 'input_ids' ? 101 : 0;
    const data = filledArray(
      input.datatype,
      dims.reduce((a, b) => a * b, 1),
      fill,
    );
    if (data === undefined) return undefined;
    tensors[input.name] = { datatype: input.datatype, dims, data };
  }
  return tensors;
}

function filledArray(datatype: string, count: number, fill: number): WarmUpTensor['data'] | undefined {
  switch (datatype) {
    case 'INT64':
      return new BigInt64Array(count).fill(BigInt(fill));
    case 'INT32':
      return new Int32Array(count).fill(fill);
    case 'FP32':
      return new Float32Array(count).fill(fill);
    case 'FP64':
      return new Float64Array(count).fill(fill);
    case 'BOOL':
    case 'UINT8':
      return new Uint8Array(count).fill(fill ? 1 : 0);
    default:
      return undefined;
  }
}
