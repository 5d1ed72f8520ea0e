// text-ranking on /serve: a (query, text) pair per row; the scores rank the texts (rerank, as TEI's).
import { rankTexts } from '@modelgate/processing';
import { firstOutput, textTask } from './text-rows.js';

export const textRanking = textTask('text-ranking', ({ outputs, request }) => {
  const logits = firstOutput(outputs, 'logits');
  const ranking = request.ranking;
  return rankTexts(logits.data as Float32Array, logits.dims, {
    rawScores: ranking?.rawScores,
    topN: ranking?.topN,
    texts: ranking?.returnText ? ranking.texts : undefined,
  });
});
