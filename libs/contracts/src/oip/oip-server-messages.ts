/**
 * The Open Inference Protocol messages a server (the worker, the gateway's gRPC face) reads and
 * writes, as @grpc/proto-loader hands them over (`keepCase: true`, `arrays: true`): snake_case
 * fields, int64 as strings or numbers.
 */
import { type Int64Like } from '../tensors/index.js';

export interface OipInferParameter {
  bool_param?: boolean;
  int64_param?: Int64Like;
  string_param?: string;
  double_param?: number;
  uint64_param?: Int64Like;
  parameter_choice?: string;
}

export interface OipInputTensor {
  name: string;
  datatype: string;
  shape: Int64Like[];
  parameters?: Record<string, OipInferParameter>;
  contents?: Record<string, unknown[]> | null;
}

export interface OipInferRequest {
  model_name: string;
  model_version?: string;
  id?: string;
  parameters?: Record<string, OipInferParameter>;
  inputs: OipInputTensor[];
  outputs?: { name: string; parameters?: Record<string, OipInferParameter> }[];
  raw_input_contents?: Uint8Array[];
}

export interface OipOutputTensor {
  name: string;
  datatype: string;
  shape: number[];
}

export interface OipInferResponse {
  model_name: string;
  model_version: string;
  id: string;
  /** Where the time went: `queue_time_us` and `compute_time_us` (int64 µs), for Server-Timing. */
  parameters: Record<string, OipInferParameter>;
  outputs: OipOutputTensor[];
  raw_output_contents: Uint8Array[];
}

export interface OipTensorMetadata {
  name: string;
  datatype: string;
  shape: number[];
}

export interface OipModelMetadataResponse {
  name: string;
  versions: string[];
  platform: string;
  inputs: OipTensorMetadata[];
  outputs: OipTensorMetadata[];
}
