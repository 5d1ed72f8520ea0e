import { type ModelSpec, isModelgateError } from '@modelgate/contracts';

/** A wait before the next load attempt, as a person reads it. */
export function formatDelay(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/** Whether a serving copy of `current` must be replaced by a freshly loaded copy of `next`. */
export function needsReload(current: ModelSpec, next: ModelSpec): boolean {
  return (
    current.artifact.sha256 !== next.artifact.sha256 ||
    externalDataKey(current) !== externalDataKey(next) ||
    JSON.stringify(current.runtime) !== JSON.stringify(next.runtime) ||
    JSON.stringify(current.batching) !== JSON.stringify(next.batching) ||
    JSON.stringify(current.generation) !== JSON.stringify(next.generation)
  );
}

/** The external data files as the loaded copy sees them: names and digests (URIs may move). */
function externalDataKey(spec: ModelSpec): string {
  return (spec.externalData ?? []).map((file) => `${file.name}\0${file.sha256}`).join('\n');
}

/** Why a load failed, in one line: a modelgate error's message, or another error's first line. */
export function failureReason(error: unknown): string {
  if (isModelgateError(error)) return error.message;
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
