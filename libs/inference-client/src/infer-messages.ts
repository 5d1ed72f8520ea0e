/**
 * The Open Inference Protocol messages this client sends and reads, in proto field names
 * (`keepCase: true`). Responses are read defensively: a Triton server may stand in for a worker.
 */
import { type InferTensorContentsLike, type Int64Like } from '@modelgate/contracts';

/** One typed value of a request or response `parameters` map (a proto oneof). */
export interface InferParameterMessage {
  bool_param?: boolean | null;
  int64_param?: Int64Like | null;
  string_param?: string | null;
  double_param?: number | null;
  uint64_param?: Int64Like | null;
  /** Which member of the oneof is set (proto-loader's `oneofs: true`). */
  parameter_choice?: string | null;
}

export interface ModelInferRequestMessage {
  model_name: string;
  model_version: string;
  id: string;
  inputs: { name: string; datatype: string; shape: number[] }[];
  outputs: { name: string }[];
  raw_input_contents: Uint8Array[];
}

export interface InferOutputTensorMessage {
  name: string;
  datatype: string;
  shape: Int64Like[];
  contents?: InferTensorContentsLike | null;
}

export interface ModelInferResponseMessage {
  model_name?: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, InferParameterMessage> | null;
  outputs?: InferOutputTensorMessage[] | null;
  raw_output_contents?: Uint8Array[] | null;
}
