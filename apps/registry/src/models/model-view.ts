import { formatModelId, type ModelView } from '@modelgate/contracts';
import { type ModelEntity } from './model.entity.js';

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
    encoder:
      row.encoderUri !== null && row.encoderSha256 !== null
        ? { uri: row.encoderUri, sha256: row.encoderSha256 }
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
    ...(row.io?.generation ? { generation: row.io.generation } : {}),
    preparedAt: row.preparedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}
