/**
 * Token models: every input INT64 [batch, sequence], one of them an `attention_mask` that hides
 * padding. Only their rows are cut to their real lengths and padded to a shared one when batched
 * (so only they have a padding ratio to bound); rows of other models batch only with rows of the
 * same shape.
 */
export function isTokenModel(
  inputs: readonly { readonly name: string; readonly datatype: string; readonly dims: readonly number[] }[],
): boolean {
  return (
    inputs.some((input) => input.name === 'attention_mask') &&
    inputs.every((input) => input.datatype === 'INT64' && input.dims.length === 2)
  );
}
