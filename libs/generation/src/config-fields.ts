// Loose readers of the fields of a Hugging Face JSON file (config.json, generation_config.json): a
// field of the wrong type reads as absent, as transformers falls back to its defaults.

/** `value` as a JSON object; undefined for anything else (arrays included). */
export function asJsonObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** Whether `value` is an integer above 0 (a length, a count). */
export function isPositiveInt(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}
