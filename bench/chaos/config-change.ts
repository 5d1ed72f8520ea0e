/**
 * The config change each drill makes while its fault lasts: a new canary weight through the
 * registry's admin API (`PUT /v1/endpoints/<endpoint>/routes`, what `modelgate route set` sends).
 * When the registry refuses it or does not answer (its database or itself down), the change is
 * made again right after the repair. Either way the drill then follows the change to every node
 * by the revision each one has applied (its /health/ready).
 */
import { AdminUnreachableError } from '@modelgate/admin-client';
import { waitFor } from '@modelgate/testing';
import { type ChaosStack, DEPLOYMENT, FLEET_SIZE, type NodeRevision } from './chaos-stack.js';
import { epochMs } from './load-records.js';

/** What the registry should answer to a change made while the fault lasts. */
export type ExpectedAnswer = 'accepted' | 'refused with 503' | 'no answer';

/** One attempt at the change. */
export interface ChangeAttempt {
  /** Epoch ms the answer (or its absence) came. */
  atMs: number;
  /** `HTTP 200`, `HTTP 503 UNAVAILABLE`, or the connection error (`ECONNREFUSED`). */
  answer: string;
  accepted: boolean;
}

/** The change, followed to the nodes. */
export interface ChangeOutcome {
  /** What was changed, e.g. `canary minilm:2 10 → 15 %`. */
  change: string;
  expectedDuringFault: ExpectedAnswer;
  /** The attempt while the fault lasted. */
  duringFault: ChangeAttempt;
  /** The attempts after the repair, when the first was not accepted (the last one accepted, unless it never was). */
  afterRepair: ChangeAttempt[];
  /** The revision the accepted change committed (the registry's latest right after it). */
  revision?: number;
  /** Epoch ms at which every node running then had applied it. */
  reachedRunningNodesAtMs?: number;
  /** Each node's applied revision when the drill ended (after the repair, the whole fleet). */
  finalRevisions: NodeRevision[];
  /** The answer during the fault was the expected one and every node applied the change. */
  ok: boolean;
}

/** How long a change may take to be accepted after the repair, and to reach every node. */
const AFTER_REPAIR_TIMEOUT_MS = 60_000;

function errorCode(error: unknown): string {
  if (error instanceof AdminUnreachableError) return error.reason;
  const { cause, message } = error as { cause?: { code?: string }; message?: string };
  return cause?.code ?? message ?? String(error);
}

function matches(expected: ExpectedAnswer, attempt: ChangeAttempt): boolean {
  switch (expected) {
    case 'accepted':
      return attempt.accepted;
    case 'refused with 503':
      return attempt.answer.startsWith('HTTP 503');
    case 'no answer':
      return !attempt.answer.startsWith('HTTP');
  }
}

/** Hands out a different canary weight each time, so every change is a new revision. */
export class CanaryWeights {
  private weight = 10;

  next(): { from: number; to: number } {
    const from = this.weight;
    this.weight = from >= 40 ? 5 : from + 5;
    return { from, to: this.weight };
  }
}

/** A change in progress during one drill. */
export class ConfigChange {
  private readonly attempts: ChangeAttempt[] = [];
  private revision: number | undefined;
  private reachedAtMs: number | undefined;
  private following: Promise<void> | undefined;
  private stopFollowing = false;

  constructor(
    private readonly stack: ChaosStack,
    private readonly weight: { from: number; to: number },
    private readonly expected: ExpectedAnswer,
  ) {}

  /** Makes one attempt; once accepted, follows it to the running nodes in the background. */
  async attempt(): Promise<ChangeAttempt> {
    let answer: string;
    try {
      const reply = await this.stack.setCanaryWeight(this.weight.to);
      const code = (reply.body as { error?: { code?: string } } | undefined)?.error?.code;
      answer = `HTTP ${reply.status}${code ? ` ${code}` : ''}`;
    } catch (error) {
      answer = errorCode(error);
    }
    const attempt = { atMs: epochMs(), answer, accepted: answer === 'HTTP 200' };
    this.attempts.push(attempt);
    if (attempt.accepted) {
      this.revision = await this.stack.latestRevision();
      this.following = this.followToRunningNodes(this.revision);
    }
    return attempt;
  }

  get accepted(): boolean {
    return this.revision !== undefined;
  }

  /** Retries every 500 ms until the registry accepts the change. */
  async retryUntilAccepted(): Promise<void> {
    await waitFor(async () => (await this.attempt()).accepted, {
      timeoutMs: AFTER_REPAIR_TIMEOUT_MS,
      intervalMs: 500,
      describe: () => `the registry did not accept the change: ${this.attempts.at(-1)?.answer}`,
    });
  }

  /** Waits until the whole fleet has applied the change (false after the timeout). */
  async reachEveryNode(): Promise<boolean> {
    const revision = this.revision;
    if (revision === undefined) return false;
    try {
      await waitFor(async () => everyNodeAt(await this.stack.nodeRevisions(), revision, true), {
        timeoutMs: AFTER_REPAIR_TIMEOUT_MS,
        intervalMs: 100,
      });
      await this.following;
      return true;
    } catch {
      return false;
    }
  }

  /** The outcome; stops following. */
  async outcome(): Promise<ChangeOutcome> {
    this.stopFollowing = true;
    await this.following;
    const finalRevisions = await this.stack.nodeRevisions();
    const [duringFault, ...afterRepair] = this.attempts;
    if (duringFault === undefined) throw new Error('no attempt was made');
    const reachedAll = this.revision !== undefined && everyNodeAt(finalRevisions, this.revision, true);
    return {
      change: `canary ${DEPLOYMENT.model}:2 ${this.weight.from} → ${this.weight.to} %`,
      expectedDuringFault: this.expected,
      duringFault,
      afterRepair,
      ...(this.revision !== undefined ? { revision: this.revision } : {}),
      ...(this.reachedAtMs !== undefined ? { reachedRunningNodesAtMs: this.reachedAtMs } : {}),
      finalRevisions,
      ok: matches(this.expected, duringFault) && reachedAll,
    };
  }

  /** Polls every 100 ms until every node running at the time has applied `revision`. */
  private async followToRunningNodes(revision: number): Promise<void> {
    while (!this.stopFollowing) {
      if (everyNodeAt(await this.stack.nodeRevisions(), revision, false)) {
        this.reachedAtMs = epochMs();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** Whether every node listed has applied `revision` (and, with `whole`, the whole fleet is listed). */
function everyNodeAt(nodes: readonly NodeRevision[], revision: number, whole: boolean): boolean {
  return (
    (!whole || nodes.length === FLEET_SIZE * 2) && nodes.every((node) => (node.revision ?? -1) >= revision)
  );
}
