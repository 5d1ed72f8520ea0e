/**
 * What the chaos load child hands back: every request it sent, in a compact form (a drill sends
 * tens of thousands), and the readiness changes it saw. Times are epoch milliseconds from
 * {@link epochMs}, which the parent uses for its phase marks too, so both sides share one clock.
 */

/** The outcome of a request answered 200. */
export const OK = 'ok';

/** The outcome of a request that found no gateway ready at the last readiness poll. */
export const NO_READY_GATEWAY = 'no ready gateway';

/** Gateway index of a request that found no gateway ready. */
export const NO_GATEWAY = -1;

/** Numbers per request in {@link LoadRecords.requests}. */
const REQUEST_FIELDS = 4;

/** Numbers per readiness change in {@link LoadRecords.readiness}. */
const READINESS_FIELDS = 3;

/** How a request ended: its outcome and, for an error answer, its message. */
export interface Ending {
  outcome: string;
  message?: string;
}

/** An answered request: OK, or `HTTP <status> <error code>` with the error's message. */
export function answerEnding(status: number, body: string): Ending {
  if (status === 200) return { outcome: OK };
  let error: { code?: string; message?: string } | undefined;
  try {
    error = (JSON.parse(body) as { error?: { code?: string; message?: string } }).error;
  } catch {
    // not JSON
  }
  return {
    outcome: `HTTP ${status}${error?.code ? ` ${error.code}` : ''}`,
    message: (error?.message ?? body).slice(0, 300),
  };
}

/** Wall-clock time in epoch ms with sub-millisecond resolution, the same in every process. */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** The load child's result. */
export interface LoadRecords {
  /** Epoch ms the offsets below count from. */
  originMs: number;
  /** Outcome names; index 0 is {@link OK}. */
  outcomes: string[];
  /** Per request: gateway index ({@link NO_GATEWAY} when none was ready), start and end offsets in ms, outcome index. */
  requests: number[];
  /** The first error message seen per failed outcome (the answer's `error.message`), for evidence. */
  messages: Record<string, string>;
  /** Per readiness change seen by the poller: offset in ms, gateway index, probe outcome index ({@link OK}: ready). */
  readiness: number[];
}

/** One request, decoded. */
export interface RequestRecord {
  gateway: number;
  /** Epoch ms. */
  startMs: number;
  /** Epoch ms. */
  endMs: number;
  outcome: string;
}

/** One readiness change, decoded. */
export interface ReadinessChange {
  /** Epoch ms. */
  atMs: number;
  gateway: number;
  ready: boolean;
  /** The probe's outcome: {@link OK}, `HTTP 503 <body>`, a timeout or a connection error. */
  probe: string;
}

/** Child side: accumulates records. */
export class LoadRecorder {
  private readonly originMs = epochMs();
  private readonly outcomes = new Map<string, number>([[OK, 0]]);
  private readonly requests: number[] = [];
  private readonly readiness: number[] = [];
  private readonly messages: Record<string, string> = {};

  /** Records a request that started at `startMs` (epoch ms) and ended now. */
  request(gateway: number, startMs: number, outcome: string, message?: string): void {
    if (message !== undefined && this.messages[outcome] === undefined) this.messages[outcome] = message;
    this.requests.push(gateway, this.offset(startMs), this.offset(epochMs()), this.outcomeIndex(outcome));
  }

  /** Records that `gateway`'s probe now answered `probe` ({@link OK}: ready), a change from the last one. */
  readinessChanged(gateway: number, probe: string): void {
    this.readiness.push(this.offset(epochMs()), gateway, this.outcomeIndex(probe));
  }

  result(): LoadRecords {
    return {
      originMs: this.originMs,
      outcomes: [...this.outcomes.keys()],
      requests: this.requests,
      readiness: this.readiness,
      messages: this.messages,
    };
  }

  private outcomeIndex(outcome: string): number {
    let index = this.outcomes.get(outcome);
    if (index === undefined) {
      index = this.outcomes.size;
      this.outcomes.set(outcome, index);
    }
    return index;
  }

  /** Offset from the origin, rounded to 0.1 ms (keeps the JSON small). */
  private offset(ms: number): number {
    return Math.round((ms - this.originMs) * 10) / 10;
  }
}

/** Parent side: the requests as records. */
export function decodeRequests(records: LoadRecords): RequestRecord[] {
  const decoded: RequestRecord[] = [];
  const { requests, outcomes, originMs } = records;
  for (let i = 0; i + REQUEST_FIELDS <= requests.length; i += REQUEST_FIELDS) {
    decoded.push({
      gateway: requests[i]!,
      startMs: originMs + requests[i + 1]!,
      endMs: originMs + requests[i + 2]!,
      outcome: outcomes[requests[i + 3]!] ?? 'unknown',
    });
  }
  return decoded;
}

/** Parent side: the readiness changes as records. */
export function decodeReadiness(records: LoadRecords): ReadinessChange[] {
  const decoded: ReadinessChange[] = [];
  const { readiness, originMs, outcomes } = records;
  for (let i = 0; i + READINESS_FIELDS <= readiness.length; i += READINESS_FIELDS) {
    const probe = outcomes[readiness[i + 2]!] ?? 'unknown';
    decoded.push({ atMs: originMs + readiness[i]!, gateway: readiness[i + 1]!, ready: probe === OK, probe });
  }
  return decoded;
}
