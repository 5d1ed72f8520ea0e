// @modelgate/processing: the gateway's text → tensors and tensors → JSON steps, as pure functions.
export {
  DEFAULT_MAX_LENGTH,
  type TextTokenizer,
  type TokenizerFiles,
  loadTokenizer,
  tokenizerMaxLength,
} from './tokenizer/text-tokenizer.js';
export {
  type ChatMessage,
  type ChatTemplate,
  chatTemplateText,
  loadChatTemplate,
} from './tokenizer/chat-template.js';
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
  checkInputNames,
  encodeInputs,
  packRows,
} from './preprocessing/encode-inputs.js';
export { longestFirstLengths, truncateContent } from './preprocessing/truncate-tokens.js';
export { checkItemCount, checkTextLengths } from './preprocessing/request-limits.js';
export { requestIssues } from './preprocessing/request-issues.js';
export {
  type ParseServeRequestOptions,
  type ServeRequest,
  type ServeRequestBody,
  parseServeRequest,
  serveRequestSchema,
} from './preprocessing/serve-request.js';
export {
  type RankRequest,
  type RankRequestBody,
  parseRankRequest,
  rankRequestSchema,
} from './preprocessing/rank-request.js';
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
export {
  type EmbedOptions,
  type PoolingMode,
  embed,
  normalizeL2,
  shortenEmbedding,
  tokenEmbeddings,
} from './postprocessing/embed.js';
export { type RankOptions, type RankedText, rankTexts, rankedTextSchema } from './postprocessing/rank.js';
export { type OutputTensor, type OutputTensorJson, rawOutputs } from './postprocessing/raw-outputs.js';
export {
  type ClassificationAgreement,
  compareClassifications,
  compareEmbeddings,
} from './postprocessing/compare-answers.js';
export {
  SERVE_TASKS,
  SERVE_TASK_SCHEMAS,
  type ServeTask,
  type ServeTaskSchemas,
  classScoreSchema,
} from './serve-task-schemas.js';
export {
  generatedTextSchema,
  generationEventSchema,
  textGenerationRequestSchema,
} from './generation-schemas.js';
export {
  AGGREGATION_STRATEGIES,
  type AggregationStrategy,
  type ClassifiedToken,
  type ClassifyTokensOptions,
  type GroupedEntity,
  type TokenEntity,
  classifyTokens,
} from './postprocessing/token-classify.js';
export {
  type TokenClassificationOptions,
  tokenClassificationParameters,
} from './preprocessing/token-classification-request.js';
export { type CharSpan } from './tokenizer/token-offsets.js';
export { type TokenClassificationInput, classifyTokenRows } from './postprocessing/token-rows.js';
export {
  type TokenizableTask,
  type TokenizeRequest,
  type TokenizeRequestBody,
  parseTokenizeRequest,
  tokenizeRequestSchema,
} from './preprocessing/tokenize-request.js';
export {
  type TokenizeTextsOptions,
  type TokenizedText,
  tokenizeTexts,
  tokenizedTextSchema,
} from './tokenizer/tokenize-texts.js';
export {
  QUESTION_ANSWERING_DEFAULTS,
  type QuestionAnswer,
  type QuestionAnsweringOptions,
  type QuestionAnsweringRequest,
  type QuestionAnsweringRequestBody,
  parseQuestionAnsweringRequest,
  questionAnswerSchema,
  questionAnsweringParametersSchema,
  questionAnsweringRequestSchema,
} from './preprocessing/question-answering-request.js';
export {
  type PairTemplate,
  type QuestionWindowOptions,
  type QuestionWindows,
  type TokenRange,
  buildQuestionWindows,
  defaultDocStride,
  planContextWindows,
} from './preprocessing/question-windows.js';
export {
  type EncodeQuestionsOptions,
  type EncodedQuestions,
  type PairPlan,
  encodeQuestions,
  questionWindowLength,
  wordIdsOf,
} from './preprocessing/encode-questions.js';
export {
  type AnswerSpan,
  type AnswerSpanOptions,
  type AnswerWindow,
  type ContextTokens,
  type SpanLogits,
  answerQuestions,
  decodeAnswerSpans,
} from './postprocessing/answer-spans.js';
export {
  DEFAULT_IMAGE_LIMITS,
  IMAGE_FORMATS,
  IMAGE_MEDIA_TYPES,
  type ImageFormat,
  type ImageLimits,
  type RawPixels,
} from './image/raw-pixels.js';
export { type ImageHeader, readImageHeader, sniffImageFormat } from './image/image-header.js';
export {
  type ImageInput,
  type ImageRequestSource,
  checkImageBytes,
  decodeImageField,
  mediaTypeOf,
  parseImageRequest,
} from './image/image-request.js';
export {
  type ImagePreprocessing,
  type Resample,
  type ResizeTarget,
  pixelValuesGeometry,
  readPreprocessorConfig,
} from './image/preprocessor-config.js';
export { type ImageProcessor, type PixelValues, loadImageProcessor } from './image/image-processor.js';
export {
  type ImageClassificationRequest,
  imageClassificationRequestSchema,
  parseImageClassificationRequest,
} from './image/image-classification-request.js';
export {
  type ImageToTextRequest,
  imageToTextRequestSchema,
  parseImageToTextRequest,
} from './image/image-to-text-request.js';
export { TrimmedTextStream } from './postprocessing/trimmed-text-stream.js';
