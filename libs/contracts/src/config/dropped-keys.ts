// Which keys a lenient parse dropped. Snapshot schemas drop unknown keys rather than refuse them,
// so that an older node reads a newer registry's snapshot; a snapshot written by hand (a node's
// config file) then loses a misspelt key without a word. Comparing what was given with what the
// parse kept names those keys, for the caller to report.

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The paths (`models[0].batching.maxBatchsize`) of the keys of `given` that `parsed`, a lenient
 * schema's output for it, no longer has. Keys a schema added (defaults) are not reported.
 */
export function droppedKeys(given: unknown, parsed: unknown, path = ''): string[] {
  if (Array.isArray(given) && Array.isArray(parsed)) {
    return given.flatMap((item, index) => droppedKeys(item, parsed[index], `${path}[${index}]`));
  }
  if (!isPlainObject(given) || !isPlainObject(parsed)) return [];
  return Object.keys(given).flatMap((key) => {
    const at = path === '' ? key : `${path}.${key}`;
    return Object.hasOwn(parsed, key) ? droppedKeys(given[key], parsed[key], at) : [at];
  });
}
