/** Stage durations in milliseconds, in the order they should be reported. */
export type StageTimings = ReadonlyArray<readonly [stage: string, durationMs: number]>;

/** Formats stages as an HTTP `Server-Timing` header value: `tokenize;dur=0.12, infer;dur=3.40`. */
export function formatServerTiming(stages: StageTimings): string {
  return stages.map(([stage, ms]) => `${stage};dur=${ms.toFixed(2)}`).join(', ');
}

/** Parses a `Server-Timing` header value back into stage durations (ms); unknown parts are skipped. */
export function parseServerTiming(header: string): Map<string, number> {
  const stages = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().split(';');
    const dur = params.map((p) => p.trim()).find((p) => p.startsWith('dur='));
    if (name && dur) stages.set(name, Number(dur.slice(4)));
  }
  return stages;
}
