// feature-extraction on /serve: one embedding per text, pooled (the endpoint's pooling over the
// attention mask, or the CLS row of a pooled [n, hidden] output) and normalized as the request (else the
// endpoint) says.
import { embed, tokenEmbeddings } from '@modelgate/processing';
import { firstOutput, textTask } from './text-rows.js';

export const featureExtraction = textTask('feature-extraction', ({ endpoint, outputs, tensors, request }) => {
  const hidden = firstOutput(outputs, 'last_hidden_state');
  const normalize = request.normalize ?? endpoint.postprocessing.normalize;
  if (request.pooling === 'none') {
    return tokenEmbeddings(
      hidden.data as Float32Array,
      hidden.dims,
      tensors.attention_mask?.data,
      normalize,
    ).map((vectors) => ({ token_embeddings: vectors }));
  }
  const pooling = request.pooling ?? endpoint.postprocessing.pooling;
  const embeddings =
    hidden.dims.length === 2
      ? embed(hidden.data as Float32Array, [hidden.dims[0] ?? 0, 1, hidden.dims[1] ?? 0], undefined, {
          pooling: 'cls',
          normalize,
        })
      : embed(hidden.data as Float32Array, hidden.dims, tensors.attention_mask?.data, { pooling, normalize });
  return embeddings.map((embedding) => ({ embedding }));
});
