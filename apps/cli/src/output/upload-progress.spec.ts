import { describe, expect, it } from 'vitest';
import { UploadProgress } from './upload-progress.js';

function recorder(interactive: boolean, totalBytes: number) {
  const written: string[] = [];
  let clock = 0;
  const progress = new UploadProgress({
    totalBytes,
    interactive,
    write: (text) => written.push(text),
    now: () => clock,
    redrawMs: 100,
  });
  return { written, progress, tick: (ms: number) => (clock += ms) };
}

describe('UploadProgress', () => {
  it('prints a line at each further tenth when stderr is not a terminal', () => {
    const { written, progress } = recorder(false, 1_000_000);
    for (let sent = 0; sent <= 1_000_000; sent += 50_000) progress.update(sent);
    progress.finish(1_000_000);
    expect(written).toEqual([
      ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map(
        (tenth) => `uploaded ${tenth * 10}% (${tenth * 100}.0 kB of 1.0 MB)\n`,
      ),
      'uploaded 100% (1.0 MB of 1.0 MB)\n',
    ]);
  });

  it('redraws one bar in place on a terminal, at most every redraw interval', () => {
    const { written, progress, tick } = recorder(true, 2000);
    progress.update(500);
    progress.update(600); // too soon: skipped
    tick(100);
    progress.update(1000);
    progress.finish(2100); // framing bytes beyond the files' size: capped
    expect(written).toEqual([
      `\ruploading [########----------------------] 25% (500 B of 2.0 kB)`,
      `\ruploading [###############---------------] 50% (1.0 kB of 2.0 kB)`,
      `\ruploading [##############################] 100% (2.0 kB of 2.0 kB)\n`,
    ]);
  });
});
