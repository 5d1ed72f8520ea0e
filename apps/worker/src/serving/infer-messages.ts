/**
 * The Open Inference Protocol messages as @grpc/proto-loader hands them to us
 * (`keepCase: true`, `longs: String`, `arrays: true`): snake_case fields, int64 as strings.
 */
import { type Int64Like } from '@modelgate/contracts';

export interface InferParameterMessage {
  bool_param?: boolean;
  int64_param?: Int64Like;
  string_param?: string;
  double_param?: number;
  uint64_param?: Int64Like;
  parameter_choice?: string;
}

export interface InferInputTensorMessage {
  name: string;
  datatype: string;
  shape: Int64Like[];
  parameters?: Record<string, InferParameterMessage>;
  contents?: Record<string, unknown[]> | null;
}

export interface ModelInferRequestMessage {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, InferParameterMessage>;
  inputs: InferInputTensorMessage[];
  outputs?: { name: string; parameters?: Record<string, InferParameterMessage> }[];
  raw_input_contents?: Uint8Array[];
}

export interface InferOutputTensorMessage {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelInferResponseMessage {
  model_name: string;
  model_version: string;
  id: string;
  /** Where the time went: `queue_time_us` and `compute_time_us` (int64 µs), for Server-Timing. */
  parameters: Record<string, InferParameterMessage>;
  outputs: InferOutputTensorMessage[];
  raw_output_contents: Uint8Array[];
}

export interface TensorMetadataMessage {
  name: string;
  datatype: string;
  shape: number[];
}

export interface ModelMetadataResponseMessage {
  name: string;
  versions: string[];
  platform: string;
  inputs: TensorMetadataMessage[];
  outputs: TensorMetadataMessage[];
}
