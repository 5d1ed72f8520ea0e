// @modelgate/generation: text generation without I/O: the continuous-batching policy and
// admission, token sampling, incremental detokenization, stop strings, request parameters, and the
// loose readers of config.json fields that the gateway shares.
export {
  DEFAULT_MAX_NEW_TOKENS,
  type GenerationParams,
  MAX_NEW_TOKENS_LIMIT,
  MAX_STOP_STRINGS,
  type TextGenerationParameters,
  optionalPenalties,
  penaltiesOf,
  penaltyParameters,
  textGenerationParametersSchema,
  toGenerationParams,
} from './params.js';
export {
  NO_PENALTIES,
  type Penalties,
  type SequenceHistory,
  applyPenalties,
  bannedNgramTokens,
  hasPenalties,
} from './penalties.js';
export { type SamplingParams, type TokenSampler, argmax, createTokenSampler } from './sampling.js';
export {
  type Admission,
  type GenerationLimits,
  type LeaveReason,
  type RunningSequence,
  type StepPlan,
  type WaitingSequence,
  admitGeneration,
  planGenerationStep,
} from './schedule.js';
export {
  type DecodingDefaults,
  type GenerationConfigDefaults,
  applyDecodingDefaults,
  readGenerationDefaults,
  withDecodingDefaults,
} from './generation-defaults.js';
export { StopMatcher } from './stop-sequences.js';
export { IncrementalDecoder } from './text-stream.js';
export { type CaptionDecoding, readCaptionDecoding } from './caption-decoding.js';
export { asJsonObject, isPositiveInt } from './config-fields.js';
export { TokenizationSpacesCleaner, cleanUpTokenizationSpaces } from './tokenization-spaces.js';
export { MAX_TOP_LOGPROBS, type TokenLogprob, tokenLogprob } from './logprobs.js';
export {
  DEFAULT_PREFILL_CHUNK_TOKENS,
  type PrefillChunking,
  type PrefillSlice,
  type StagedPrompt,
  isChunkedPrompt,
  planPrefillSlices,
} from './chunked-prefill.js';
