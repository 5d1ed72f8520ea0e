/**
 * A request's deadline, in ms from its arrival: the endpoint's `timeoutMs`, else the model's
 * `batching.defaultTimeoutMs` (as the endpoint schema documents), the same on every gateway.
 */
export function requestTimeoutMs(
  endpoint: { readonly timeoutMs?: number | undefined },
  model: { readonly batching: { readonly defaultTimeoutMs: number } },
): number {
  return endpoint.timeoutMs ?? model.batching.defaultTimeoutMs;
}
