import { CancelSource, type CancelSignal } from '@modelgate/batching';
import { GrpcStatus } from '@modelgate/contracts';
import { type OutlierEjector } from './outlier-ejector.js';
import { type StallWatch } from './stall-watch.js';
import { isTransportDeadline } from './worker-errors.js';

/** One ModelInfer attempt owed by a worker: its signal, and whether a stall ejection cancelled it. */
export interface OwedAttempt {
  /** The caller's signal, and the stall's: what the channel call is given. */
  readonly signal: CancelSignal;
  /** True when the attempt was cancelled because its worker stalled: it may go to another worker. */
  readonly stalled: boolean;
  /** Ends the attempt with the call's status (OK = 0) and message. */
  end(status: number, details?: string): void;
}

/**
 * What the client does about workers that stop answering: feeds the StallWatch with each call's
 * dispatch and outcome, and at each pick ejects a stalled worker (OutlierEjector.eject) and
 * cancels the ModelInfer attempts it owes, so they fail over while their deadline allows instead
 * of waiting it out. Generation streams are watched until their first message but not cancelled
 * (a stream that began is not retried).
 */
export class StallGuard {
  private readonly attempts = new Map<string, Set<AttemptState>>();

  constructor(
    private readonly watch: StallWatch,
    private readonly ejector: OutlierEjector,
    /** Told of each stall ejection (the client marks the worker's failure streak). */
    private readonly onEjected: (address: string) => void,
  ) {}

  /** A ModelInfer attempt goes to `address`. */
  beginAttempt(address: string, callerSignal: CancelSignal | undefined): OwedAttempt {
    this.watch.dispatched(address);
    const state = new AttemptState(callerSignal, (status, details) => {
      this.attempts.get(address)?.delete(state);
      this.settle(address, state.stalled ? GrpcStatus.UNAVAILABLE : status, details);
    });
    let owed = this.attempts.get(address);
    if (owed === undefined) this.attempts.set(address, (owed = new Set()));
    owed.add(state);
    return state;
  }

  /** A call that is not cancelled on a stall (a generation stream) goes to `address`. */
  dispatched(address: string): void {
    this.watch.dispatched(address);
  }

  /** A call to `address` watched by `dispatched` ended or got its first message, with `status`. */
  settle(address: string, status: number, details = ''): void {
    if (status === GrpcStatus.CANCELLED || status === GrpcStatus.UNAVAILABLE) this.watch.dropped(address);
    else if (status === GrpcStatus.DEADLINE_EXCEEDED && isTransportDeadline(details))
      this.watch.timedOut(address);
    else this.watch.answered(address);
  }

  /** `address` streamed a message of a call already answered: alive, whatever it still owes. */
  spoke(address: string): void {
    this.watch.spoke(address);
  }

  /** Ejects each of `addresses` that stalled, cancelling the attempts it owes. */
  check(addresses: readonly string[]): void {
    for (const address of addresses) {
      if (!this.watch.isStalled(address) || !this.ejector.eject(address)) continue;
      this.watch.reset(address);
      this.onEjected(address);
      for (const attempt of this.attempts.get(address) ?? []) attempt.cancelForStall();
    }
  }

  /** Drops addresses not in `keep` (workers that left the fleet). */
  retain(keep: ReadonlySet<string>): void {
    this.watch.retain(keep);
    for (const address of this.attempts.keys()) if (!keep.has(address)) this.attempts.delete(address);
  }
}

class AttemptState implements OwedAttempt {
  private readonly source = new CancelSource();
  private ended = false;
  stalled = false;

  constructor(
    private readonly callerSignal: CancelSignal | undefined,
    private readonly onEnd: (status: number, details: string) => void,
  ) {
    if (callerSignal?.aborted) this.source.abort();
    else callerSignal?.addEventListener('abort', this.forward, { once: true });
  }

  get signal(): CancelSignal {
    return this.source;
  }

  cancelForStall(): void {
    if (this.ended || this.source.aborted) return;
    this.stalled = true;
    this.source.abort();
  }

  end(status: number, details = ''): void {
    if (this.ended) return;
    this.ended = true;
    this.callerSignal?.removeEventListener('abort', this.forward);
    this.onEnd(status, details);
  }

  private readonly forward = (): void => this.source.abort();
}
