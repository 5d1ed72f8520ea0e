// @modelgate/processing: the gateway's text → tensors and tensors → JSON steps, as pure functions.
export {
  DEFAULT_MAX_LENGTH,
  type TextTokenizer,
  type TokenizerFiles,
  loadTokenizer,
} from './tokenizer/text-tokenizer.js';
export { TOKENIZER_FILES, loadTokenizerFromDir } from './tokenizer/load-tokenizer-dir.js';
export { type ModelConfigFacts, readModelConfig } from './tokenizer/model-config.js';
export {
  type EncodedText,
  type SpecialTokensTemplate,
  type TemplatePiece,
  applySpecialTokensTemplate,
  countSpecialTokens,
  parseSpecialTokensTemplate,
} from './tokenizer/special-tokens-template.js';
export {
  TEXT_INPUT_NAMES,
  type EncodeInputsOptions,
  type EncodedInputs,
  type Int64Tensor,
  type TextInputName,
  encodeInputs,
} from './preprocessing/encode-inputs.js';
export { longestFirstLengths, truncateContent } from './preprocessing/truncate-tokens.js';
export {
  type ParseServeRequestOptions,
  type ServeRequest,
  type ServeRequestBody,
  parseServeRequest,
  serveRequestSchema,
} from './preprocessing/serve-request.js';
export {
  type NamedTensor,
  type ParseRawInferRequestOptions,
  type RawInferRequest,
  parseRawInferRequest,
  rawInferRequestSchema,
} from './preprocessing/raw-request.js';
export {
  type ClassScore,
  type ClassifyOptions,
  classify,
  resolveClassifyOptions,
  sigmoid,
  softmax,
  topKIndices,
} from './postprocessing/classify.js';
export { type EmbedOptions, type PoolingMode, embed, normalizeL2 } from './postprocessing/embed.js';
export { type OutputTensor, type OutputTensorJson, rawOutputs } from './postprocessing/raw-outputs.js';
export {
  type ClassificationAgreement,
  compareClassifications,
  compareEmbeddings,
} from './postprocessing/compare-answers.js';
