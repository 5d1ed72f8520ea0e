import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INFERENCE_PROTO_PATH } from './proto-path.js';

interface ProtoOutline {
  header: string[];
  rpcs: string[];
  /** `Message.Nested.field` → `[repeated ]type = number`. */
  fields: Record<string, string>;
}

/** Just enough of a proto3 reader to list messages, fields and rpcs of a file in our style. */
function outlineProto(source: string): ProtoOutline {
  const outline: ProtoOutline = { header: [], rpcs: [], fields: {} };
  const scopes: (string | null)[] = [];
  for (const rawLine of source.split('\n')) {
    const line = rawLine.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    const opened = /^(message|service|oneof)\s+(\w+)\s*\{(\s*\})?$/.exec(line);
    const rpc = /^rpc\s+(\w+)\(((?:stream\s+)?\w+)\)\s+returns\s+\(((?:stream\s+)?\w+)\)\s*\{\}$/.exec(line);
    const field = /^(repeated\s+)?(map<\w+,\s*\w+>|\w+)\s+(\w+)\s*=\s*(\d+);$/.exec(line);
    if (opened) {
      if (opened[3] === undefined) scopes.push(opened[1] === 'message' ? (opened[2] ?? null) : null);
      else outline.fields[`${opened[2]}.(empty)`] = '';
    } else if (line === '}') {
      scopes.pop();
    } else if (rpc) {
      outline.rpcs.push(`${rpc[1]}(${rpc[2]}) returns (${rpc[3]})`);
    } else if (field) {
      const owner = scopes.filter((scope) => scope !== null).join('.');
      outline.fields[`${owner}.${field[3]}`] = `${field[1] ?? ''}${field[2]} = ${field[4]}`;
    } else if (scopes.length === 0) {
      outline.header.push(line);
    } else {
      throw new Error(`unrecognised proto line: ${line}`);
    }
  }
  return outline;
}

describe('inference.proto', () => {
  const outline = outlineProto(readFileSync(INFERENCE_PROTO_PATH, 'utf8'));

  it('is found at an absolute path beside the sources', () => {
    expect(isAbsolute(INFERENCE_PROTO_PATH)).toBe(true);
    expect(INFERENCE_PROTO_PATH).toMatch(/libs\/contracts\/proto\/inference\.proto$/);
  });

  it('declares proto3 and package inference', () => {
    expect(outline.header).toEqual(['syntax = "proto3";', 'package inference;']);
  });

  it("declares the six core Open Inference Protocol rpcs, the generation extension and Triton's ModelStreamInfer on GRPCInferenceService", () => {
    expect(outline.rpcs).toEqual([
      'ServerLive(ServerLiveRequest) returns (ServerLiveResponse)',
      'ServerReady(ServerReadyRequest) returns (ServerReadyResponse)',
      'ModelReady(ModelReadyRequest) returns (ModelReadyResponse)',
      'ServerMetadata(ServerMetadataRequest) returns (ServerMetadataResponse)',
      'ModelMetadata(ModelMetadataRequest) returns (ModelMetadataResponse)',
      'ModelInfer(ModelInferRequest) returns (ModelInferResponse)',
      'ModelGenerate(ModelGenerateRequest) returns (stream ModelGenerateResponse)',
      'ModelStreamInfer(stream ModelInferRequest) returns (stream ModelStreamInferResponse)',
    ]);
  });

  it('uses the specification field names, types and numbers, and only the documented extension besides', () => {
    expect(outline.fields).toEqual({
      'ServerLiveRequest.(empty)': '',
      'ServerLiveResponse.live': 'bool = 1',
      'ServerReadyRequest.(empty)': '',
      'ServerReadyResponse.ready': 'bool = 1',
      'ModelReadyRequest.name': 'string = 1',
      'ModelReadyRequest.version': 'string = 2',
      'ModelReadyResponse.ready': 'bool = 1',
      'ServerMetadataRequest.(empty)': '',
      'ServerMetadataResponse.name': 'string = 1',
      'ServerMetadataResponse.version': 'string = 2',
      'ServerMetadataResponse.extensions': 'repeated string = 3',
      'ModelMetadataRequest.name': 'string = 1',
      'ModelMetadataRequest.version': 'string = 2',
      'ModelMetadataResponse.TensorMetadata.name': 'string = 1',
      'ModelMetadataResponse.TensorMetadata.datatype': 'string = 2',
      'ModelMetadataResponse.TensorMetadata.shape': 'repeated int64 = 3',
      'ModelMetadataResponse.name': 'string = 1',
      'ModelMetadataResponse.versions': 'repeated string = 2',
      'ModelMetadataResponse.platform': 'string = 3',
      'ModelMetadataResponse.inputs': 'repeated TensorMetadata = 4',
      'ModelMetadataResponse.outputs': 'repeated TensorMetadata = 5',
      'InferParameter.bool_param': 'bool = 1',
      'InferParameter.int64_param': 'int64 = 2',
      'InferParameter.string_param': 'string = 3',
      'InferParameter.double_param': 'double = 4',
      'InferParameter.uint64_param': 'uint64 = 5',
      'InferTensorContents.bool_contents': 'repeated bool = 1',
      'InferTensorContents.int_contents': 'repeated int32 = 2',
      'InferTensorContents.int64_contents': 'repeated int64 = 3',
      'InferTensorContents.uint_contents': 'repeated uint32 = 4',
      'InferTensorContents.uint64_contents': 'repeated uint64 = 5',
      'InferTensorContents.fp32_contents': 'repeated float = 6',
      'InferTensorContents.fp64_contents': 'repeated double = 7',
      'InferTensorContents.bytes_contents': 'repeated bytes = 8',
      'ModelInferRequest.InferInputTensor.name': 'string = 1',
      'ModelInferRequest.InferInputTensor.datatype': 'string = 2',
      'ModelInferRequest.InferInputTensor.shape': 'repeated int64 = 3',
      'ModelInferRequest.InferInputTensor.parameters': 'map<string, InferParameter> = 4',
      'ModelInferRequest.InferInputTensor.contents': 'InferTensorContents = 5',
      'ModelInferRequest.InferRequestedOutputTensor.name': 'string = 1',
      'ModelInferRequest.InferRequestedOutputTensor.parameters': 'map<string, InferParameter> = 2',
      'ModelInferRequest.model_name': 'string = 1',
      'ModelInferRequest.model_version': 'string = 2',
      'ModelInferRequest.id': 'string = 3',
      'ModelInferRequest.parameters': 'map<string, InferParameter> = 4',
      'ModelInferRequest.inputs': 'repeated InferInputTensor = 5',
      'ModelInferRequest.outputs': 'repeated InferRequestedOutputTensor = 6',
      'ModelInferRequest.raw_input_contents': 'repeated bytes = 7',
      'ModelInferResponse.InferOutputTensor.name': 'string = 1',
      'ModelInferResponse.InferOutputTensor.datatype': 'string = 2',
      'ModelInferResponse.InferOutputTensor.shape': 'repeated int64 = 3',
      'ModelInferResponse.InferOutputTensor.parameters': 'map<string, InferParameter> = 4',
      'ModelInferResponse.InferOutputTensor.contents': 'InferTensorContents = 5',
      'ModelInferResponse.model_name': 'string = 1',
      'ModelInferResponse.model_version': 'string = 2',
      'ModelInferResponse.id': 'string = 3',
      'ModelInferResponse.parameters': 'map<string, InferParameter> = 4',
      'ModelInferResponse.outputs': 'repeated InferOutputTensor = 5',
      'ModelInferResponse.raw_output_contents': 'repeated bytes = 6',
      // Triton's streaming extension (ModelStreamInfer)
      'ModelStreamInferResponse.error_message': 'string = 1',
      'ModelStreamInferResponse.infer_response': 'ModelInferResponse = 2',
      // modelgate's generation extension (ModelGenerate)
      'ModelGenerateRequest.model_name': 'string = 1',
      'ModelGenerateRequest.model_version': 'string = 2',
      'ModelGenerateRequest.id': 'string = 3',
      'ModelGenerateRequest.input_ids': 'repeated int64 = 4',
      'ModelGenerateRequest.max_new_tokens': 'uint32 = 5',
      'ModelGenerateRequest.eos_token_ids': 'repeated int64 = 6',
      'ModelGenerateRequest.do_sample': 'bool = 7',
      'ModelGenerateRequest.temperature': 'double = 8',
      'ModelGenerateRequest.top_k': 'uint32 = 9',
      'ModelGenerateRequest.top_p': 'double = 10',
      'ModelGenerateRequest.has_seed': 'bool = 11',
      'ModelGenerateRequest.seed': 'uint64 = 12',
      'ModelGenerateRequest.pixel_values': 'bytes = 13',
      'ModelGenerateRequest.pixel_values_shape': 'repeated int64 = 14',
      'ModelGenerateRequest.repetition_penalty': 'double = 15',
      'ModelGenerateRequest.frequency_penalty': 'double = 16',
      'ModelGenerateRequest.presence_penalty': 'double = 17',
      'ModelGenerateRequest.no_repeat_ngram_size': 'uint32 = 18',
      'ModelGenerateRequest.min_new_tokens': 'uint32 = 19',
      'ModelGenerateRequest.logprobs': 'bool = 20',
      'ModelGenerateRequest.top_logprobs': 'uint32 = 21',
      'ModelGenerateResponse.model_name': 'string = 1',
      'ModelGenerateResponse.model_version': 'string = 2',
      'ModelGenerateResponse.id': 'string = 3',
      'ModelGenerateResponse.token_ids': 'repeated int64 = 4',
      'ModelGenerateResponse.finish_reason': 'string = 5',
      'ModelGenerateResponse.prompt_tokens': 'uint32 = 6',
      'ModelGenerateResponse.generated_tokens': 'uint32 = 7',
      'ModelGenerateResponse.queue_micros': 'uint64 = 8',
      'ModelGenerateResponse.compute_micros': 'uint64 = 9',
      'ModelGenerateResponse.logprobs': 'repeated TokenLogprob = 10',
      'TokenLogprob.logprob': 'double = 1',
      'TokenLogprob.top_ids': 'repeated int64 = 2',
      'TokenLogprob.top_logprobs': 'repeated double = 3',
    });
  });
});
