/**
 * Which session a batch runs on. The instances share the cores, so a batch on one of them computes
 * on its share alone; a model may also hold a solo session with a thread per core
 * (model-loading/intra-op-threads.ts). A batch takes the solo session only when it would otherwise
 * run by itself: every instance idle and no other row queued. A batch that starts while the solo
 * session runs takes an instance, so for at most that one solo batch the model's threads exceed the
 * cores; waiting for it instead would turn a steady two-request load into one batch at a time.
 * The solo batch holds one of the batcher's `instances` slots, so meanwhile at most instances − 1
 * others run: the excess stays within the solo session's threads.
 */
export class SessionPool<TSession> {
  private readonly idle: TSession[];
  private soloFree: boolean;

  constructor(
    private readonly instances: readonly TSession[],
    private readonly solo?: TSession,
  ) {
    this.idle = [...instances];
    this.soloFree = solo !== undefined;
  }

  /** The solo session, if the model has one. */
  get soloSession(): TSession | undefined {
    return this.solo;
  }

  /** Whether the solo session exists and runs no batch now. */
  get soloIdle(): boolean {
    return this.soloFree;
  }

  /**
   * The session for a batch about to start, taken out of the pool, or undefined when none is idle;
   * `solo`: the batch runs on the solo session (execution-path.ts chose it: the batch found no
   * other batch running and no row queued when it was dispatched), else on an instance.
   */
  take(solo: boolean): TSession | undefined {
    if (solo && this.soloFree && this.idle.length === this.instances.length) {
      this.soloFree = false;
      return this.solo;
    }
    return this.idle.pop();
  }

  /** Whether `session` is the solo session. */
  isSolo(session: TSession): boolean {
    return this.solo !== undefined && session === this.solo;
  }

  /** Puts back a session `take` gave. A session whose thread died is never put back. */
  give(session: TSession): void {
    if (this.isSolo(session)) this.soloFree = true;
    else this.idle.push(session);
  }
}
