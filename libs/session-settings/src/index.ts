// @modelgate/session-settings: how the worker opens its onnxruntime sessions (providers, threads,
// spinning), written once for the worker and for the bench's raw onnxruntime references.
export {
  type ProviderConfig,
  type SessionSettings,
  sessionOptions,
  spinsWithinRuns,
} from './session-options.js';
export { resolveInlineThreads, resolveIntraOpThreads, resolveSoloThreads } from './intra-op-threads.js';
