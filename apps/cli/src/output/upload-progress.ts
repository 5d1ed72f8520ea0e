/**
 * Byte progress of an upload: on a terminal, one bar rewritten in place (at most every
 * `redrawMs`); otherwise a line at each further tenth, so a CI log shows progress without a flood.
 * The total is the files' size (the multipart framing adds a little), so the share is capped at
 * 100% and `finish` prints the last state whatever it was.
 */
export interface UploadProgressOptions {
  totalBytes: number;
  interactive: boolean;
  write: (text: string) => void;
  now?: () => number;
  /** Least time between two redraws of the bar, in ms. @defaultValue 100 */
  redrawMs?: number;
}

/** Reports sent bytes; call `update(sent)` as they go and `finish(sent)` at the end. */
export class UploadProgress {
  private lastDrawMs = -Infinity;
  private lastTenth = 0;
  private readonly now: () => number;

  constructor(private readonly options: UploadProgressOptions) {
    this.now = options.now ?? (() => performance.now());
  }

  update(sentBytes: number): void {
    const { interactive, write } = this.options;
    if (interactive) {
      const at = this.now();
      if (at - this.lastDrawMs < (this.options.redrawMs ?? 100)) return;
      this.lastDrawMs = at;
      write(`\r${this.bar(sentBytes)}`);
      return;
    }
    const tenth = Math.floor(this.share(sentBytes) * 10);
    if (tenth <= this.lastTenth || tenth >= 10) return;
    this.lastTenth = tenth;
    write(`${this.line(sentBytes)}\n`);
  }

  finish(sentBytes: number): void {
    const { interactive, write } = this.options;
    write(interactive ? `\r${this.bar(sentBytes)}\n` : `${this.line(sentBytes)}\n`);
  }

  private share(sentBytes: number): number {
    const { totalBytes } = this.options;
    return totalBytes <= 0 ? 1 : Math.min(1, sentBytes / totalBytes);
  }

  private bar(sentBytes: number): string {
    const width = 30;
    const filled = Math.round(this.share(sentBytes) * width);
    return `uploading [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.counts(sentBytes)}`;
  }

  private line(sentBytes: number): string {
    return `uploaded ${this.counts(sentBytes)}`;
  }

  private counts(sentBytes: number): string {
    const percent = Math.floor(this.share(sentBytes) * 100);
    return `${percent}% (${formatBytes(Math.min(sentBytes, this.options.totalBytes))} of ${formatBytes(this.options.totalBytes)})`;
  }
}

/** `1.5 MB`: decimal units, one decimal above bytes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
