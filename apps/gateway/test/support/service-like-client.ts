/** One request the client sent, with when (on the client's event sequence) it was sent and answered. */
export interface SentRequest {
  target: string;
  /** `routed`: picked from the rotation; `late`: sent to a target on purpose after it left it. */
  kind: 'routed' | 'late';
  sentAt: number;
  answeredAt: number;
  /** HTTP status; 0 when the request failed without an answer. */
  status: number;
  /** Why it failed: the error without an answer, or the body of an answer other than 200. */
  error?: string;
  /** The answer's `connection` header. */
  connection: string | null;
}

/** Pause between readiness polls of one target, in ms (a kubelet polls every few seconds). */
const POLL_GAP_MS = 20;

/**
 * Sends traffic the way a Kubernetes Service does: round-robin over the targets in rotation, and
 * a target leaves the rotation for good once its /health/ready answered anything but 200 (or did
 * not answer). Everything it sees is numbered on one sequence, so a test can assert the order of
 * events (readiness observed false, a log line, an answer) without timing anything.
 */
export class ServiceLikeClient {
  private sequence = 0;
  private readonly marks = new Map<string, number>();
  private readonly markWaiters = new Map<string, (() => void)[]>();
  private readonly rotation: string[];
  private readonly sent: SentRequest[] = [];
  private readonly answers = new Map<string, number>();
  private readonly countWaiters: { target: string; count: number; resolve: () => void }[] = [];
  private readonly unreadyStatus = new Map<string, number>();
  private running = false;
  private loops: Promise<void>[] = [];
  private next = 0;

  constructor(private readonly targets: Readonly<Record<string, string>>) {
    this.rotation = Object.keys(targets);
  }

  /** Starts one readiness poller per target and `concurrency` senders. */
  start(concurrency: number): void {
    this.running = true;
    this.loops = [
      ...this.rotation.map((target) => this.poll(target)),
      ...Array.from({ length: concurrency }, () => this.send()),
    ];
  }

  /** Stops sending and polling; resolves once every loop has ended. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Records event `name` now; returns its place in the sequence. */
  mark(name: string): number {
    const at = this.tick();
    this.marks.set(name, at);
    for (const resolve of this.markWaiters.get(name) ?? []) resolve();
    this.markWaiters.delete(name);
    return at;
  }

  /** Where event `name` happened in the sequence; throws when it has not. */
  at(name: string): number {
    const at = this.marks.get(name);
    if (at === undefined) throw new Error(`event ${name} has not happened`);
    return at;
  }

  /** Records event `name` once `matches` holds for what `child` has written since this call. */
  eventWhen(
    name: string,
    child: { stdout: NodeJS.ReadableStream | null; stderr: NodeJS.ReadableStream | null },
    matches: (text: string) => boolean,
  ): Promise<void> {
    let tail = '';
    const onData = (chunk: Buffer) => {
      // Lines may be split across chunks: look at the chunk with the end of the previous one.
      const text = tail + chunk.toString('utf8');
      tail = text.slice(-200);
      if (!this.marks.has(name) && matches(text)) this.mark(name);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    return this.happened(name);
  }

  /** Resolves once event `name` has happened. */
  happened(name: string): Promise<void> {
    if (this.marks.has(name)) return Promise.resolve();
    return new Promise((resolve) => {
      this.markWaiters.set(name, [...(this.markWaiters.get(name) ?? []), resolve]);
    });
  }

  /** Resolves once the client has seen `target` not ready (it left the rotation). */
  unready(target: string): Promise<void> {
    return this.happened(`${target}:unready`);
  }

  /** The readiness status that took `target` out of the rotation (0: it did not answer). */
  unreadyStatusOf(target: string): number | undefined {
    return this.unreadyStatus.get(target);
  }

  /** Requests `target` has answered so far. */
  answered(target: string): number {
    return this.answers.get(target) ?? 0;
  }

  /** Resolves once `target` has answered `count` requests. */
  answeredBy(target: string, count: number): Promise<void> {
    if (this.answered(target) >= count) return Promise.resolve();
    return new Promise((resolve) => this.countWaiters.push({ target, count, resolve }));
  }

  /** Sends one request to `target` whatever the rotation says. */
  sendTo(target: string, kind: SentRequest['kind']): Promise<SentRequest> {
    return this.request(target, kind);
  }

  /** Every request sent so far. */
  requests(): readonly SentRequest[] {
    return this.sent;
  }

  /** The requests that got no 200, described. */
  failures(): string[] {
    return this.sent
      .filter((request) => request.status !== 200)
      .map(
        (r) =>
          `${r.kind} request to ${r.target} (sent at ${r.sentAt}, events ${JSON.stringify(Object.fromEntries(this.marks))}): ${r.status === 0 ? '' : `HTTP ${r.status} `}${r.error}`,
      );
  }

  private tick(): number {
    return this.sequence++;
  }

  private async poll(target: string): Promise<void> {
    const url = this.urlOf(target);
    while (this.running) {
      let status = 0;
      try {
        const response = await fetch(`${url}/health/ready`);
        await response.arrayBuffer();
        status = response.status;
      } catch {
        // no answer at all: out of the rotation as well
      }
      if (status !== 200) {
        this.rotation.splice(this.rotation.indexOf(target), 1);
        this.unreadyStatus.set(target, status);
        this.mark(`${target}:unready`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_GAP_MS));
    }
  }

  private async send(): Promise<void> {
    while (this.running && this.rotation.length > 0) {
      const target = this.rotation[this.next++ % this.rotation.length]!;
      await this.request(target, 'routed');
    }
  }

  private async request(target: string, kind: SentRequest['kind']): Promise<SentRequest> {
    const record: SentRequest = {
      target,
      kind,
      sentAt: this.tick(),
      answeredAt: -1,
      status: 0,
      connection: null,
    };
    this.sent.push(record);
    try {
      const response = await fetch(`${this.urlOf(target)}/serve/sentiment`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'keep serving through the shutdown' }),
      });
      const body = await response.text();
      record.status = response.status;
      if (response.status !== 200) record.error = body;
      record.connection = response.headers.get('connection');
    } catch (error) {
      record.error = error instanceof Error ? `${error.message} (${String(error.cause)})` : String(error);
    }
    record.answeredAt = this.tick();
    this.answers.set(target, this.answered(target) + 1);
    for (const waiter of this.countWaiters.filter(
      (w) => w.target === target && this.answered(target) >= w.count,
    )) {
      this.countWaiters.splice(this.countWaiters.indexOf(waiter), 1);
      waiter.resolve();
    }
    return record;
  }

  private urlOf(target: string): string {
    const url = this.targets[target];
    if (url === undefined) throw new Error(`unknown target ${target}`);
    return url;
  }
}
