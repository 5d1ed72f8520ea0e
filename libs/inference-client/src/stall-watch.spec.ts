import { describe, expect, it } from 'vitest';
import { StallWatch } from './stall-watch.js';

/** A watch at a fake time where worker `b` answers whenever `tick` is called. */
function watchAt(stallMs = 2000) {
  const time = { now: 10_000 };
  const watch = new StallWatch({ stallMs }, () => time.now);
  const othersAnswer = () => {
    watch.dispatched('b');
    watch.answered('b');
  };
  return { watch, time, othersAnswer };
}

describe('StallWatch', () => {
  it('calls a worker stalled once a call has waited stallMs unanswered while another answered, not before', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    time.now += 1999;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
    time.now += 1;
    expect(watch.isStalled('a')).toBe(true);
    expect(watch.isStalled('b')).toBe(false);
    expect(watch.isStalled('c')).toBe(false);
  });

  it('stalls nothing when no other worker answered meanwhile: a model slow everywhere is not a hang', () => {
    const { watch, time } = watchAt();
    watch.dispatched('a');
    watch.dispatched('b');
    time.now += 10_000;
    expect(watch.isStalled('a')).toBe(false);
    expect(watch.isStalled('b')).toBe(false);
  });

  it('never calls an idle worker stalled, however long it stays idle', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    time.now += 500;
    watch.answered('a');
    time.now += 60_000;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
  });

  it('counts the silence from its last answer while other calls to it still run', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    watch.dispatched('a');
    time.now += 1500;
    watch.answered('a');
    time.now += 1999;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
    time.now += 1;
    expect(watch.isStalled('a')).toBe(true);
  });

  it('does not restart the silence when a call goes to a worker that already owes one', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    time.now += 1500;
    watch.dispatched('a');
    time.now += 500;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(true);
  });

  it('spans calls that reached their deadline unanswered: a worker whose calls all time out stays silent', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    time.now += 1000;
    watch.timedOut('a');
    watch.dispatched('a');
    time.now += 500;
    watch.timedOut('a');
    time.now += 500;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(true);
  });

  it('starts the silence over when a running stream sends a token, while what it owes stays owed', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a'); // a generation waiting for a slot, while a's running streams send tokens
    time.now += 1500;
    watch.spoke('a');
    time.now += 1999;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
    time.now += 1;
    expect(watch.isStalled('a')).toBe(true);
  });

  it('forgets a call the caller cancelled or whose connection failed, without a silence going on', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    watch.dispatched('a');
    watch.dropped('a');
    watch.dropped('a');
    time.now += 5000;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
  });

  it('starts over after reset: the next stall is counted from then', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    time.now += 5000;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(true);
    watch.reset('a');
    expect(watch.isStalled('a')).toBe(false);
    time.now += 1999;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(false);
    time.now += 1;
    othersAnswer();
    expect(watch.isStalled('a')).toBe(true);
  });

  it('forgets workers that left the fleet', () => {
    const { watch, time, othersAnswer } = watchAt();
    watch.dispatched('a');
    watch.dispatched('c');
    time.now += 2000;
    othersAnswer();
    watch.retain(new Set(['c', 'b']));
    expect(watch.isStalled('a')).toBe(false);
    expect(watch.isStalled('c')).toBe(true);
  });
});
