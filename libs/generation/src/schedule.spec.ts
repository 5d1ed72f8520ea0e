import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type GenerationLimits,
  type RunningSequence,
  type WaitingSequence,
  admitGeneration,
  planGenerationStep,
} from './schedule.js';

const limits: GenerationLimits = { maxSequences: 2, maxCacheTokens: 100, maxQueue: 3 };

function running(id: string, fields: Partial<RunningSequence<string>> = {}): RunningSequence<string> {
  return { id, promptTokens: 10, maxNewTokens: 10, generatedTokens: 1, cancelled: false, ...fields };
}

function waiting(id: string, fields: Partial<WaitingSequence<string>> = {}): WaitingSequence<string> {
  return { id, promptTokens: 10, maxNewTokens: 10, enqueuedAtMs: 0, cancelled: false, ...fields };
}

/** Cache a batch holds: every row is as wide as the largest reservation (prompt + max_new_tokens). */
const paddedCache = (list: ReadonlyArray<{ promptTokens: number; maxNewTokens: number }>): number =>
  list.length * Math.max(0, ...list.map((s) => s.promptTokens + s.maxNewTokens));

describe('planGenerationStep', () => {
  it('starts waiting sequences in arrival order while slots are free', () => {
    const plan = planGenerationStep(
      [],
      [
        waiting('late', { enqueuedAtMs: 5 }),
        waiting('first', { enqueuedAtMs: 1 }),
        waiting('second', { enqueuedAtMs: 2 }),
      ],
      limits,
      10,
    );
    expect(plan).toEqual({ leave: [], drop: [], join: ['first', 'second'] });
  });

  it('lets finished, cancelled and expired sequences leave, freeing their slots for the queue', () => {
    const plan = planGenerationStep(
      [
        running('eos', { finished: 'eos' }),
        running('length', { finished: 'length', cancelled: true }),
        running('cancelled', { cancelled: true, deadlineMs: 5 }),
        running('expired', { deadlineMs: 10 }),
        running('unmarked', { generatedTokens: 10 }),
        running('stays', { deadlineMs: 11 }),
      ],
      [waiting('next'), waiting('after')],
      limits,
      10,
    );
    expect(plan.leave).toEqual([
      { id: 'eos', reason: 'eos' },
      { id: 'length', reason: 'length' },
      { id: 'cancelled', reason: 'cancelled' },
      { id: 'expired', reason: 'deadline' },
      { id: 'unmarked', reason: 'length' },
    ]);
    expect(plan.join).toEqual(['next']);
  });

  it('drops cancelled and expired waiting sequences, which never join', () => {
    const plan = planGenerationStep(
      [],
      [
        waiting('gone', { cancelled: true }),
        waiting('late', { deadlineMs: 3 }),
        waiting('ok', { deadlineMs: 4 }),
      ],
      limits,
      3,
    );
    expect(plan.drop).toEqual([
      { id: 'gone', reason: 'cancelled' },
      { id: 'late', reason: 'deadline' },
    ]);
    expect(plan.join).toEqual(['ok']);
  });

  it('stops at the first sequence over the cache budget: no overtaking by a smaller one', () => {
    const plan = planGenerationStep(
      [running('a', { promptTokens: 40, maxNewTokens: 20 })],
      [
        waiting('big', { promptTokens: 30, maxNewTokens: 20, enqueuedAtMs: 1 }),
        waiting('small', { enqueuedAtMs: 2 }),
      ],
      { maxSequences: 4, maxCacheTokens: 100, maxQueue: 4 },
      0,
    );
    expect(plan.join).toEqual([]);
  });

  it('fills the padded budget exactly: rows × the largest reservation', () => {
    const plan = planGenerationStep(
      [running('a', { promptTokens: 40, maxNewTokens: 10 })],
      [waiting('fits', { promptTokens: 30, maxNewTokens: 10 })],
      { maxSequences: 4, maxCacheTokens: 100, maxQueue: 4 },
      0,
    );
    expect(plan.join).toEqual(['fits']);
  });

  it('counts the padding of a batched cache: short sequences do not join beside a long one past the budget', () => {
    // 1024 + 7 × 100 = 1724 reserved would fit 2048, but the cache holds 8 rows of 1024 positions.
    const plan = planGenerationStep(
      [running('long', { promptTokens: 1000, maxNewTokens: 24 })],
      Array.from({ length: 7 }, (_, i) => waiting(`short${i}`, { promptTokens: 90, maxNewTokens: 10 })),
      { maxSequences: 8, maxCacheTokens: 2048, maxQueue: 8 },
      0,
    );
    expect(plan.join).toEqual(['short0']);
    // A long sequence waiting behind short running ones is held the same way.
    const behind = planGenerationStep(
      [
        running('a', { promptTokens: 90, maxNewTokens: 10 }),
        running('b', { promptTokens: 90, maxNewTokens: 10 }),
      ],
      [waiting('long', { promptTokens: 1000, maxNewTokens: 24 })],
      { maxSequences: 8, maxCacheTokens: 2048, maxQueue: 8 },
      0,
    );
    expect(behind.join).toEqual([]);
    // Alone, a sequence of the whole budget always joins.
    const alone = planGenerationStep(
      [],
      [waiting('whole', { promptTokens: 2000, maxNewTokens: 48 })],
      { maxSequences: 8, maxCacheTokens: 2048, maxQueue: 8 },
      0,
    );
    expect(alone.join).toEqual(['whole']);
  });

  it('never exceeds slots or budget, joins FIFO, and partitions every sequence', () => {
    const runningArb = fc.record({
      promptTokens: fc.integer({ min: 1, max: 60 }),
      maxNewTokens: fc.integer({ min: 1, max: 40 }),
      generatedTokens: fc.nat(45),
      finished: fc.option(fc.constantFrom('eos' as const, 'length' as const), { nil: undefined }),
      cancelled: fc.boolean(),
      deadlineMs: fc.option(fc.nat(100), { nil: undefined }),
    });
    const waitingArb = fc.record({
      promptTokens: fc.integer({ min: 1, max: 60 }),
      maxNewTokens: fc.integer({ min: 1, max: 40 }),
      enqueuedAtMs: fc.nat(100),
      cancelled: fc.boolean(),
      deadlineMs: fc.option(fc.nat(100), { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.array(runningArb, { maxLength: 8 }),
        fc.array(waitingArb, { maxLength: 12 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 400 }),
        fc.nat(100),
        (runningFields, waitingFields, maxSequences, maxCacheTokens, nowMs) => {
          const run = runningFields.map((fields, i) => ({ id: `r${i}`, ...fields }));
          const wait = waitingFields.map((fields, i) => ({ id: `w${i}`, ...fields }));
          const plan = planGenerationStep(run, wait, { maxSequences, maxCacheTokens, maxQueue: 100 }, nowMs);

          const leaving = new Set(plan.leave.map((entry) => entry.id));
          const staying = run.filter((sequence) => !leaving.has(sequence.id));
          // No sequence both leaves and stays; a staying one has a reason to stay.
          expect(leaving.size).toBe(plan.leave.length);
          for (const sequence of staying) {
            expect(sequence.finished).toBeUndefined();
            expect(sequence.cancelled).toBe(false);
            expect(sequence.generatedTokens).toBeLessThan(sequence.maxNewTokens);
            if (sequence.deadlineMs !== undefined) expect(nowMs).toBeLessThan(sequence.deadlineMs);
          }
          for (const { id, reason } of plan.leave) {
            const sequence = run.find((candidate) => candidate.id === id)!;
            if (sequence.finished !== undefined) expect(reason).toBe(sequence.finished);
          }

          // Dropped ones never join; every waiting one is dropped, joins or keeps waiting, once.
          const dropped = new Set(plan.drop.map((entry) => entry.id));
          expect(plan.join.filter((id) => dropped.has(id))).toEqual([]);
          expect(new Set(plan.join).size).toBe(plan.join.length);
          for (const { id, reason } of plan.drop) {
            const sequence = wait.find((candidate) => candidate.id === id)!;
            expect(reason === 'cancelled' ? sequence.cancelled : nowMs >= sequence.deadlineMs!).toBe(true);
          }

          // Joins fit the limits when the running ones fit them (joins never break a limit).
          const joined = plan.join.map((id) => wait.find((candidate) => candidate.id === id)!);
          if (joined.length > 0) {
            expect(staying.length + joined.length).toBeLessThanOrEqual(maxSequences);
            expect(paddedCache([...staying, ...joined])).toBeLessThanOrEqual(maxCacheTokens);
          }

          // FIFO: the joined ones are the oldest live waiting ones, a prefix in arrival order...
          const live = wait
            .filter((sequence) => !dropped.has(sequence.id))
            .sort((a, b) => a.enqueuedAtMs - b.enqueuedAtMs);
          expect(plan.join).toEqual(live.slice(0, joined.length).map((sequence) => sequence.id));
          // ...and the next one did not fit.
          const next = live[joined.length];
          if (next !== undefined) {
            const full = staying.length + joined.length >= maxSequences;
            const over = paddedCache([...staying, ...joined, next]) > maxCacheTokens;
            expect(full || over).toBe(true);
          }
        },
      ),
    );
  });

  it('drains a queue over successive steps with a fake clock, never over the limits', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            promptTokens: fc.integer({ min: 1, max: 30 }),
            maxNewTokens: fc.integer({ min: 1, max: 8 }),
          }),
          {
            minLength: 1,
            maxLength: 20,
          },
        ),
        fc.integer({ min: 1, max: 4 }),
        (requests, maxSequences) => {
          const limitsHere = { maxSequences, maxCacheTokens: 40, maxQueue: 100 };
          let queue: Array<WaitingSequence<number>> = requests.map((request, id) => ({
            id,
            ...request,
            enqueuedAtMs: id,
            cancelled: false,
          }));
          let batch: Array<RunningSequence<number>> = [];
          const started: number[] = [];
          for (let nowMs = 100; queue.length > 0 || batch.length > 0; nowMs += 1) {
            const plan = planGenerationStep(batch, queue, limitsHere, nowMs);
            const leaving = new Set(plan.leave.map((entry) => entry.id));
            batch = batch.filter((sequence) => !leaving.has(sequence.id));
            for (const id of plan.join) {
              const sequence = queue.find((candidate) => candidate.id === id)!;
              batch.push({ ...sequence, generatedTokens: 0 });
              started.push(id);
            }
            queue = queue.filter((sequence) => !plan.join.includes(sequence.id));
            expect(batch.length).toBeLessThanOrEqual(maxSequences);
            expect(paddedCache(batch)).toBeLessThanOrEqual(40);
            // One decode step: every running sequence gets a token.
            batch = batch.map((sequence) => ({ ...sequence, generatedTokens: sequence.generatedTokens + 1 }));
            expect(nowMs).toBeLessThan(100 + 20 * 9 + 1);
          }
          expect(started).toEqual(requests.map((_, id) => id));
        },
      ),
    );
  });
});

describe('admitGeneration', () => {
  it('admits while the queue has room', () => {
    expect(admitGeneration(2, { promptTokens: 50, maxNewTokens: 50 }, limits)).toEqual({ ok: true });
  });

  it('refuses a full queue', () => {
    const admission = admitGeneration(3, { promptTokens: 5, maxNewTokens: 5 }, limits);
    expect(admission).toMatchObject({ ok: false, reason: 'queue-full' });
    if (!admission.ok) expect(admission.message).toContain('3 sequences');
  });

  it('refuses a sequence over the whole cache budget, even with an empty queue', () => {
    const admission = admitGeneration(0, { promptTokens: 60, maxNewTokens: 41 }, limits);
    expect(admission).toMatchObject({ ok: false, reason: 'too-long' });
    if (!admission.ok) expect(admission.message).toContain('101 tokens');
    expect(admitGeneration(5, { promptTokens: 60, maxNewTokens: 41 }, limits)).toMatchObject({
      reason: 'too-long',
    });
  });

  it("refuses a sequence over the model's positions when they are known", () => {
    const withPositions = { ...limits, maxPositions: 64 };
    expect(admitGeneration(0, { promptTokens: 60, maxNewTokens: 4 }, withPositions)).toEqual({ ok: true });
    const admission = admitGeneration(0, { promptTokens: 60, maxNewTokens: 5 }, withPositions);
    expect(admission).toMatchObject({ ok: false, reason: 'too-long' });
    if (!admission.ok) expect(admission.message).toContain("over the model's 64 positions");
  });
});
