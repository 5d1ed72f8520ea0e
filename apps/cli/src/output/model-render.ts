// How `modelgate model list` and `model show` print model versions.
import { type ModelView, isGenerativeTask, resolvedMaxBatchSize } from '@modelgate/contracts';
import { formatDetails, formatTable } from './table.js';

/** The table of `model list` (`wide`: more columns; `headers` false: the rows alone). */
export function renderModelTable(models: readonly ModelView[], wide: boolean, headers = true): string {
  return formatTable(
    models,
    [
      { header: 'MODEL', cell: (m) => m.id },
      { header: 'TASK', cell: (m) => m.task },
      { header: 'STATUS', cell: (m) => m.status },
      { header: 'WORKER GROUP', cell: (m) => m.workerGroup },
      { header: 'PROVIDERS', cell: (m) => m.runtime.executionProviders.join(',') },
      { header: 'INSTANCES', cell: (m) => String(m.runtime.instances), align: 'right', wide: true },
      { header: 'MAX BATCH', cell: (m) => String(resolvedMaxBatchSize(m)), align: 'right', wide: true },
      { header: 'SHA256', cell: (m) => m.artifact?.sha256.slice(0, 12) ?? '-', wide: true },
      { header: 'REASON', cell: (m) => m.statusReason ?? '-', wide: true },
      { header: 'CREATED', cell: (m) => m.createdAt },
    ],
    { empty: '(no models)', wide, headers },
  );
}

/** The details of one model version (`model show`). */
export function renderModel(model: ModelView): string {
  const tensors = (list: ModelView['inputs']): string | undefined =>
    list.length === 0
      ? undefined
      : list.map((t) => `${t.name} ${t.datatype} [${t.dims.join(',')}]`).join(', ');
  const { runtime } = model;
  return formatDetails([
    ['model', model.id],
    ['task', model.task],
    ['status', model.status],
    ['reason', model.statusReason ?? undefined],
    ['worker group', model.workerGroup],
    ['source', model.source ?? undefined],
    ['artifact', model.artifact === null ? 'not yet imported' : describeArtifact(model.artifact)],
    [
      'encoder',
      model.encoder !== null
        ? describeArtifact(model.encoder)
        : model.task === 'image-to-text'
          ? 'not yet imported'
          : undefined,
    ],
    [
      'external data',
      model.externalData.length === 0
        ? undefined
        : model.externalData.map((file) => `${file.name}: ${describeArtifact(file)}`).join('; '),
    ],
    ['tokenizer', model.tokenizer === null ? undefined : describeArtifact(model.tokenizer)],
    ['labels', model.labels?.join(', ')],
    ['inputs', tensors(model.inputs)],
    ['outputs', tensors(model.outputs)],
    ['batching', describeBatching(model)],
    ['runtime', `providers ${runtime.executionProviders.join(',')}, instances ${runtime.instances}`],
    ['timings', model.timings === null ? undefined : describeTimings(model.timings)],
    ['prepared', model.preparedAt ?? undefined],
    ['created', model.createdAt],
  ]);
}

/** Batching limits in the words of the task: a generative model has slots, a queue and a KV-cache budget. */
function describeBatching(model: ModelView): string {
  const { batching } = model;
  const maxBatch = resolvedMaxBatchSize(model);
  if (isGenerativeTask(model.task)) {
    return (
      `${maxBatch} sequences decoding together, ${batching.maxQueueSize} waiting, ` +
      `KV cache ${batching.maxBatchTokens} tokens, default timeout ${batching.defaultTimeoutMs}ms`
    );
  }
  return (
    `max batch ${maxBatch}, max queue delay ${batching.maxQueueDelayMicros}µs, ` +
    `max batch tokens ${batching.maxBatchTokens}, max padding ratio ${batching.maxPaddingRatio}, ` +
    `max queue ${batching.maxQueueSize}, ` +
    `default timeout ${batching.defaultTimeoutMs}ms`
  );
}

/** The URI and the start of the digest (`--json` has all of it). */
function describeArtifact(artifact: { uri: string; sha256: string }): string {
  return `${artifact.uri} (sha256 ${artifact.sha256.slice(0, 12)}…)`;
}

/** Preparation steps in the order they run: `fetch 23ms, open 85ms, warmUp 2ms, total 111ms`. */
function describeTimings(timings: Record<string, number>): string {
  const order = ['fetchMs', 'openMs', 'warmUpMs', 'totalMs'];
  const rank = (step: string): number => (order.includes(step) ? order.indexOf(step) : order.length);
  return Object.entries(timings)
    .sort(([a], [b]) => rank(a) - rank(b))
    .map(([step, ms]) => `${step.replace(/Ms$/, '')} ${Math.round(ms)}ms`)
    .join(', ');
}
