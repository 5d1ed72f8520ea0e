/**
 * A model's Prometheus labels from its `name:version` id: `model` (the name) and `version` apart,
 * so queries group by either (DESIGN §3.7). An id with no version (`none` before a route was
 * chosen, `unknown` for a model a worker does not serve) gets version `none`.
 */
export function modelLabels(modelId: string): { model: string; version: string } {
  const separator = modelId.lastIndexOf(':');
  return separator > 0
    ? { model: modelId.slice(0, separator), version: modelId.slice(separator + 1) }
    : { model: modelId, version: 'none' };
}
