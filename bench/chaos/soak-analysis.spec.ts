import { describe, expect, it } from 'vitest';
import { type ProcessSample, SOAK_LIMITS, judgeProcess, slopePerHour } from './soak-analysis.js';

const MiB = 1024 * 1024;
const MINUTE = 60_000;

/** A sample per minute from minute 0 to `minutes`, RSS and heap from `rssMiB(minute)`. */
function series(
  minutes: number,
  rssMiB: (minute: number) => number,
  fds: (minute: number) => number = () => 40,
): ProcessSample[] {
  return Array.from({ length: minutes + 1 }, (_, minute) => ({
    atMs: minute * MINUTE,
    rssBytes: rssMiB(minute) * MiB,
    fds: fds(minute),
    heapUsedBytes: (rssMiB(minute) / 4) * MiB,
    externalBytes: 2 * MiB,
  }));
}

describe('slopePerHour', () => {
  it('is the least-squares slope, per hour', () => {
    expect(slopePerHour([0, MINUTE, 2 * MINUTE], [10, 11, 12])).toBeCloseTo(60);
    // Noise around a flat line leaves no slope.
    expect(slopePerHour([0, MINUTE, 2 * MINUTE, 3 * MINUTE], [10, 12, 10, 12])).toBeCloseTo(24);
    expect(slopePerHour([0, MINUTE, 2 * MINUTE, 3 * MINUTE, 4 * MINUTE], [11, 9, 10, 9, 11])).toBeCloseTo(0);
  });

  it('is NaN with fewer than two points or no spread in time', () => {
    expect(slopePerHour([0], [1])).toBeNaN();
    expect(slopePerHour([5, 5], [1, 2])).toBeNaN();
  });
});

describe('judgeProcess', () => {
  it('finds a process flat when only the warm-up grew', () => {
    // +50 MiB over the 5-minute warm-up, then a saw-tooth around 300 MiB.
    const samples = series(30, (minute) => (minute < 5 ? 250 + minute * 10 : 300 + (minute % 2) * 4));
    const verdict = judgeProcess('worker 0', samples, 5 * MINUTE);
    expect(verdict.problems).toEqual([]);
    expect(verdict.samples).toBe(26);
    expect(verdict.rss).toMatchObject({ first: 304, last: 300, min: 300, max: 304 });
    expect(Math.abs(verdict.rss!.slopePerHour)).toBeLessThan(2);
  });

  it('names every series that grows past its limit after the warm-up', () => {
    // 1 MiB a minute of RSS (60 MiB/h) and heap 15 MiB/h; half a descriptor more a minute (30/h).
    const samples = series(
      30,
      (minute) => 300 + minute,
      (minute) => 40 + minute / 2,
    );
    const verdict = judgeProcess('gateway 1', samples, 5 * MINUTE);
    expect(verdict.problems).toEqual([
      `RSS grew 60.0 MiB/h (limit ${SOAK_LIMITS.rssMiBPerHour})`,
      `heap grew 15.0 MiB/h (limit ${SOAK_LIMITS.heapMiBPerHour})`,
      `file descriptors grew 30.0 fds/h (limit ${SOAK_LIMITS.fdsPerHour})`,
    ]);
  });

  it('says so when it restarted, had too few samples or its metrics did not answer', () => {
    expect(
      judgeProcess(
        'registry',
        series(2, () => 100),
        0,
        true,
      ).problems,
    ).toEqual(['restarted during the soak']);
    expect(
      judgeProcess(
        'registry',
        series(10, () => 100),
        9 * MINUTE,
      ).problems,
    ).toEqual(['only 2 samples after the warm-up']);
    const silent = series(10, () => 100).map(
      ({ heapUsedBytes: _heap, externalBytes: _external, ...rest }) => rest,
    );
    const verdict = judgeProcess('worker 1', silent, 0);
    expect(verdict.heapUsed).toBeUndefined();
    expect(verdict.problems).toEqual(['its /metrics answered fewer than half the samples']);
  });
});
