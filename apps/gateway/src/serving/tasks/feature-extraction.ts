// feature-extraction on /serve: one embedding per text, pooled (the endpoint's pooling over the
// attention mask, or the CLS row of a pooled [n, hidden] output) and normalized as the endpoint says.
import { embed } from '@modelgate/processing';
import { firstOutput, textTask } from './text-rows.js';

export const featureExtraction = textTask('feature-extraction', ({ endpoint, outputs, tensors }) => {
  const hidden = firstOutput(outputs, 'last_hidden_state');
  const { pooling, normalize } = endpoint.postprocessing;
  const embeddings =
    hidden.dims.length === 2
      ? embed(hidden.data as Float32Array, [hidden.dims[0] ?? 0, 1, hidden.dims[1] ?? 0], undefined, {
          pooling: 'cls',
          normalize,
        })
      : embed(hidden.data as Float32Array, hidden.dims, tensors.attention_mask?.data, { pooling, normalize });
  return embeddings.map((embedding) => ({ embedding }));
});
