/** Token text of a tokenizer_config.json entry: a string, or an AddedToken object `{content}`. */
export function addedTokenContent(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (
    typeof value === 'object' &&
    value !== null &&
    'content' in value &&
    typeof value.content === 'string'
  ) {
    return value.content;
  }
  return undefined;
}
