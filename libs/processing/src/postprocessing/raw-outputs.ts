// Output tensors → KServe v2 REST JSON (`{name, datatype, shape, data}`), for raw endpoints.
import { type TensorData, type TensorDatatype, fp16ArrayToFloat32 } from '@modelgate/contracts';

/** An output tensor as a worker returns it, decoded. */
export interface OutputTensor {
  name: string;
  datatype: TensorDatatype;
  shape: readonly number[];
  data: TensorData;
}

/** One output tensor as JSON: flat row-major data. */
export interface OutputTensorJson {
  name: string;
  datatype: TensorDatatype;
  shape: number[];
  /** Numbers (INT64/UINT64 beyond 2^53 lose precision, as in any JSON number), booleans for BOOL, strings for BYTES. */
  data: number[] | boolean[] | string[];
}

function jsonData(datatype: TensorDatatype, data: TensorData): OutputTensorJson['data'] {
  if (Array.isArray(data)) {
    const decoder = new TextDecoder();
    return data.map((bytes) => decoder.decode(bytes));
  }
  switch (datatype) {
    case 'BOOL':
      return Array.from(data as Uint8Array, (value) => value !== 0);
    case 'FP16':
      return Array.from(fp16ArrayToFloat32(data as Uint16Array));
    case 'INT64':
    case 'UINT64':
      return Array.from(data as BigInt64Array | BigUint64Array, Number);
    default:
      return Array.from(data as ArrayLike<number>);
  }
}

/** The outputs as KServe v2 JSON tensors, in the given order; FP16 as floats, BYTES as UTF-8 strings. */
export function rawOutputs(outputs: readonly OutputTensor[]): OutputTensorJson[] {
  return outputs.map((output) => ({
    name: output.name,
    datatype: output.datatype,
    shape: [...output.shape],
    data: jsonData(output.datatype, output.data),
  }));
}
