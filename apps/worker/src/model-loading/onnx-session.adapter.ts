/**
 * The only file that imports onnxruntime-node. Everything else sees `OnnxSession`: tensors in
 * the Open Inference Protocol's datatypes, plain typed arrays and dims.
 */
import * as ort from 'onnxruntime-node';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ProviderAttempt, type ProviderConfig } from './execution-providers.js';

/** A tensor as the worker handles it: OIP datatype, dims and a typed array in that type. */
export interface WorkerTensor {
  datatype: string;
  dims: number[];
  data: ort.Tensor['data'];
}

/** A model input or output as declared by the ONNX graph; symbolic dims are -1. */
export interface TensorDeclaration {
  name: string;
  datatype: string;
  dims: number[];
}

/** One onnxruntime session, seen through OIP vocabulary. */
export interface OnnxSession {
  readonly inputs: readonly TensorDeclaration[];
  readonly outputs: readonly TensorDeclaration[];
  /** Runs the graph; `outputNames` limits what is fetched. */
  run(
    feeds: Record<string, WorkerTensor>,
    outputNames?: readonly string[],
  ): Promise<Record<string, WorkerTensor>>;
  release(): Promise<void>;
}

const OIP_BY_ORT_TYPE: Record<string, string> = {
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

const ORT_TYPE_BY_OIP = Object.fromEntries(
  Object.entries(OIP_BY_ORT_TYPE).map(([ortType, oip]) => [oip, ortType]),
) as Record<string, ort.Tensor.Type>;

/** Session-wide options that do not depend on the provider. */
export interface SessionSettings {
  /** Intra-op threads; 0 lets onnxruntime pick (one per core). */
  intraOpThreads: number;
}

/** Opens `modelPath` with the providers of one attempt. */
export async function openOnnxSession(
  modelPath: string,
  attempt: ProviderAttempt,
  settings: SessionSettings,
): Promise<OnnxSession> {
  if (attempt.providers.some((p) => p.name === 'tensorrt')) applyTensorRtEnvironment(attempt.providers);
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: attempt.providers,
    graphOptimizationLevel: 'all',
    ...(settings.intraOpThreads > 0 ? { intraOpNumThreads: settings.intraOpThreads } : {}),
    // Spinning intra-op threads steal the event loop's core on small machines (DESIGN §7).
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
    logSeverityLevel: 3,
  });
  return new OrtSession(session);
}

/**
 * The Node binding reads only `deviceId` from a provider object; TensorRT's engine cache and fp16
 * switches are honoured through onnxruntime's documented ORT_TENSORRT_* variables.
 */
function applyTensorRtEnvironment(providers: readonly ProviderConfig[]): void {
  const trt = providers.find((p) => p.name === 'tensorrt');
  if (trt?.name !== 'tensorrt') return;
  process.env.ORT_TENSORRT_ENGINE_CACHE_ENABLE = '1';
  process.env.ORT_TENSORRT_CACHE_PATH = trt.trtEngineCachePath;
  process.env.ORT_TENSORRT_FP16_ENABLE = trt.trtFp16Enable ? '1' : '0';
}

class OrtSession implements OnnxSession {
  readonly inputs: TensorDeclaration[];
  readonly outputs: TensorDeclaration[];

  constructor(private readonly session: ort.InferenceSession) {
    this.inputs = session.inputMetadata.map(toDeclaration);
    this.outputs = session.outputMetadata.map(toDeclaration);
  }

  async run(
    feeds: Record<string, WorkerTensor>,
    outputNames?: readonly string[],
  ): Promise<Record<string, WorkerTensor>> {
    const ortFeeds: Record<string, ort.Tensor> = {};
    for (const [name, tensor] of Object.entries(feeds)) {
      const type = ORT_TYPE_BY_OIP[tensor.datatype];
      if (type === undefined) throw invalid(`input '${name}': datatype ${tensor.datatype} is not supported`);
      ortFeeds[name] = new ort.Tensor(type, tensor.data, tensor.dims);
    }
    const results = outputNames
      ? await this.session.run(ortFeeds, [...outputNames])
      : await this.session.run(ortFeeds);
    const outputs: Record<string, WorkerTensor> = {};
    for (const [name, tensor] of Object.entries(results)) {
      outputs[name] = {
        datatype: OIP_BY_ORT_TYPE[tensor.type] ?? tensor.type,
        dims: [...tensor.dims],
        data: tensor.data,
      };
    }
    return outputs;
  }

  release(): Promise<void> {
    return this.session.release();
  }
}

function toDeclaration(meta: ort.InferenceSession.ValueMetadata): TensorDeclaration {
  if (!meta.isTensor) return { name: meta.name, datatype: 'UNSUPPORTED', dims: [] };
  return {
    name: meta.name,
    datatype: OIP_BY_ORT_TYPE[meta.type] ?? meta.type,
    dims: meta.shape.map((dim) => (typeof dim === 'number' && dim >= 0 ? dim : -1)),
  };
}

function invalid(message: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message);
}
