import { describe, expect, it } from 'vitest';
import { parseChaosOptions } from './chaos-options.js';
import { DRILL_NAMES } from './drills.js';

const parse = (...argv: string[]) => parseChaosOptions(argv, '/results');

describe('parseChaosOptions', () => {
  it('runs every drill with 30 s outages into the default directory when given nothing', () => {
    expect(parse()).toEqual({
      drills: [...DRILL_NAMES],
      soakMinutes: null,
      downSeconds: 30,
      outDir: '/results',
    });
  });

  it('runs the drills named by --only in the run order, whatever order they were named in', () => {
    expect(parse('--only', 'registry-down, worker-kill')).toMatchObject({
      drills: ['worker-kill', 'registry-down'],
    });
  });

  it('refuses an unknown drill by name', () => {
    expect(() => parse('--only', 'worker-kill,disk-fill')).toThrow(/unknown drill 'disk-fill'/);
  });

  it('takes disk-full, last in the run order', () => {
    expect(parse('--only', 'disk-full,worker-kill')).toMatchObject({ drills: ['worker-kill', 'disk-full'] });
  });

  it('runs the soak only when --only names it, for 30 minutes unless --soak-minutes says otherwise', () => {
    expect(parse('--only', 'soak')).toMatchObject({ drills: [], soakMinutes: 30 });
    expect(parse('--only', 'soak,worker-kill', '--soak-minutes', '3')).toMatchObject({
      drills: ['worker-kill'],
      soakMinutes: 3,
    });
    for (const bad of ['2', '601', '4.5', 'ten']) {
      expect(() => parse('--only', 'soak', `--soak-minutes=${bad}`)).toThrow(
        /--soak-minutes must be an integer from 3 to 600/,
      );
    }
    expect(() => parse('--soak-minutes', '10')).toThrow(/applies to the soak only/);
    expect(() => parse('--only', 'worker-kill', '--soak-minutes', '10')).toThrow(/applies to the soak only/);
  });

  it('refuses an empty --only', () => {
    expect(() => parse('--only', ',')).toThrow(/at least one drill/);
  });

  it('takes --down-seconds as a whole number of seconds from 1 to 600', () => {
    expect(parse('--down-seconds', '5')).toMatchObject({ downSeconds: 5 });
    for (const bad of ['0', '601', '2.5', '-3', 'ten', '']) {
      expect(() => parse(`--down-seconds=${bad}`)).toThrow(/--down-seconds must be an integer from 1 to 600/);
    }
  });

  it('refuses --down-seconds when no chosen drill has an outage', () => {
    expect(() => parse('--only', 'worker-kill', '--down-seconds', '5')).toThrow(/changes nothing/);
  });

  it('refuses unknown options and positional arguments', () => {
    expect(() => parse('--concurrency', '64')).toThrow();
    expect(() => parse('worker-kill')).toThrow();
  });

  it('answers help for --help', () => {
    expect(parse('--help')).toBe('help');
  });
});
