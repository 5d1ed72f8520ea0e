import { type TensorDatatype } from './tensor-datatype.js';

/**
 * onnxruntime's tensor type names (as its JS API spells them) and the Open Inference Protocol
 * datatype each one is. Plain data, so contracts stays free of onnxruntime.
 */
export const DATATYPE_BY_RUNTIME_TYPE: Readonly<Record<string, TensorDatatype>> = {
  bool: 'BOOL',
  uint8: 'UINT8',
  uint16: 'UINT16',
  uint32: 'UINT32',
  uint64: 'UINT64',
  int8: 'INT8',
  int16: 'INT16',
  int32: 'INT32',
  int64: 'INT64',
  float16: 'FP16',
  float32: 'FP32',
  float64: 'FP64',
  string: 'BYTES',
};

/** The onnxruntime type name of each protocol datatype (the inverse of DATATYPE_BY_RUNTIME_TYPE). */
export const RUNTIME_TYPE_BY_DATATYPE: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(DATATYPE_BY_RUNTIME_TYPE).map(([runtimeType, datatype]) => [datatype, runtimeType]),
);
