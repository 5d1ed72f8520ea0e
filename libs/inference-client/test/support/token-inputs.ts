import { type InferInput } from '@modelgate/inference-client';

/** The three INT64 inputs of a BERT-style model for equal-length token rows. */
export function tokenInputs(rows: readonly (readonly number[])[]): InferInput[] {
  const dims = [rows.length, rows[0]?.length ?? 0];
  const ids = BigInt64Array.from(rows.flat().map(BigInt));
  return [
    { name: 'input_ids', datatype: 'INT64', dims, data: ids },
    { name: 'attention_mask', datatype: 'INT64', dims, data: new BigInt64Array(ids.length).fill(1n) },
    { name: 'token_type_ids', datatype: 'INT64', dims, data: new BigInt64Array(ids.length) },
  ];
}

/** The FP32 data of output `name`; throws when it is missing or of another type. */
export function fp32Data(
  outputs: Record<string, { datatype: string; data: unknown }>,
  name: string,
): Float32Array {
  const output = outputs[name];
  if (output?.datatype !== 'FP32' || !(output.data instanceof Float32Array)) {
    throw new Error(`no FP32 output ${name}`);
  }
  return output.data;
}
