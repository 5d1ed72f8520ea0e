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

/**
 * What a generation's default deadline allows per token it may generate, on top of the model's
 * defaultTimeoutMs: a slow CPU decode step of a large model, so that max_new_tokens up to the
 * limit does not time out by default.
 */
export const GENERATION_MS_PER_TOKEN = 50;

/**
 * A generation's deadline, in ms from its arrival: the endpoint's `timeoutMs` when it sets one
 * (the whole generation, as documented), else the model's defaultTimeoutMs plus
 * GENERATION_MS_PER_TOKEN for each of the `maxNewTokens` it may generate: the default scales with the work.
 */
export function generationTimeoutMs(
  endpoint: { readonly timeoutMs?: number | undefined },
  model: { readonly batching: { readonly defaultTimeoutMs: number } },
  maxNewTokens: number,
): number {
  return endpoint.timeoutMs ?? model.batching.defaultTimeoutMs + maxNewTokens * GENERATION_MS_PER_TOKEN;
}
