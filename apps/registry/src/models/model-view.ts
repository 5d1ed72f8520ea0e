import {
  type ArtifactRef,
  type BatchingConfig,
  type ExternalDataRef,
  formatModelId,
  type ModelTask,
  type RuntimeConfig,
  type TensorMetadata,
} from '@modelgate/contracts';
import { type ModelEntity, type ModelStatus, type PreparationTimings } from './model.entity.js';

/** A model version as the API shows it. */
export interface ModelView {
  /** `name:version`. */
  id: string;
  name: string;
  version: string;
  task: ModelTask;
  status: ModelStatus;
  /** Why it FAILED, or how preparation is going; null when there is nothing to say. */
  statusReason: string | null;
  workerGroup: string;
  /** Where the files were imported from (`hf://org/name@revision`); null when registered by URI or upload. */
  source: string | null;
  /** The .onnx file; null until the import from `source` is done. */
  artifact: ArtifactRef | null;
  /** ONNX external data files placed beside the .onnx file under their names. */
  externalData: ExternalDataRef[];
  tokenizer: ArtifactRef | null;
  labels: string[] | null;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  batching: BatchingConfig;
  runtime: RuntimeConfig;
  timings: PreparationTimings | null;
  preparedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The API view of a `models` row. */
export function toModelView(row: ModelEntity): ModelView {
  const version = String(row.version);
  return {
    id: formatModelId(row.name, version),
    name: row.name,
    version,
    task: row.task,
    status: row.status,
    statusReason: row.statusReason,
    workerGroup: row.workerGroup,
    source: row.sourceUri,
    artifact:
      row.artifactUri !== null && row.artifactSha256 !== null
        ? { uri: row.artifactUri, sha256: row.artifactSha256 }
        : null,
    externalData: row.externalData,
    tokenizer:
      row.tokenizerUri !== null && row.tokenizerSha256 !== null
        ? { uri: row.tokenizerUri, sha256: row.tokenizerSha256 }
        : null,
    labels: row.labels,
    inputs: row.io?.inputs ?? [],
    outputs: row.io?.outputs ?? [],
    batching: row.batching,
    runtime: row.runtime,
    timings: row.timings,
    preparedAt: row.preparedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
