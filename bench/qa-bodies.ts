/**
 * The question-answering workload, built the same way by the suite and by the children it starts
 * (their configs travel in one environment variable, too small for the texts themselves): a
 * question per bench sentence about a long context of the sentences from it on, and the windows
 * the gateway cuts each into (the pipeline's default window and stride).
 */
import {
  type EncodedText,
  type TextTokenizer,
  buildQuestionWindows,
  defaultDocStride,
  questionWindowLength,
} from '@modelgate/processing';

/** How the children rebuild the workload. */
export interface QaWorkload {
  /** Sentences per context. */
  contextSentences: number;
}

/** A body per sentence: a question about a context of `contextSentences` sentences from it on. */
export function qaBodies(
  sentences: readonly string[],
  workload: QaWorkload,
): { question: string; context: string }[] {
  return sentences.map((sentence, i) => ({
    question: `${sentence.split(' ').slice(0, 6).join(' ')}?`,
    context: Array.from(
      { length: workload.contextSentences },
      (_, k) => sentences[(i + k) % sentences.length] ?? '',
    ).join(' '),
  }));
}

/** The rows the gateway builds for `bodies`, with the pipeline's default window and stride. */
export function qaWindows(
  tokenizer: TextTokenizer,
  bodies: readonly { question: string; context: string }[],
): EncodedText[] {
  const maxSeqLen = questionWindowLength(tokenizer);
  return bodies.flatMap(
    ({ question, context }) =>
      buildQuestionWindows(tokenizer.tokenize(question), tokenizer.tokenize(context), tokenizer, {
        maxSeqLen,
        docStride: defaultDocStride(maxSeqLen),
        maxQuestionLen: 64,
        field: 'question',
      }).rows,
  );
}
