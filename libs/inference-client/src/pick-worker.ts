/** What the balancer knows about one worker when it picks. */
export interface WorkerLoad {
  /** gRPC target of the worker. */
  address: string;
  /** What this client has sent to the worker and not yet seen answered: rows (a call counts its rows). */
  outstanding: number;
  /** True while the outlier ejector keeps the worker out of rotation. */
  ejected: boolean;
  /**
   * True while the worker's last call failed to connect, recently (the ejector's suspect window):
   * passed over while a worker neither ejected nor suspect remains. @defaultValue false
   */
  suspect?: boolean | undefined;
  /** When the worker last failed (ms on the client's clock); undefined when it never has. */
  lastFailureAt?: number | undefined;
  /**
   * True while the worker is back from an ejection and has not answered since: with a call
   * outstanding it is passed over like a suspect one, so a trial costs one call. @defaultValue false
   */
  probation?: boolean | undefined;
}

/** The balancer's choice. */
export interface WorkerPick {
  address: string;
  /** True when every candidate was ejected and this one was taken anyway (panic mode). */
  panic: boolean;
}

/** Which candidates a pick may take, and how it breaks ties. */
export interface PickOptions {
  /** Addresses already tried by this request; never picked again. @defaultValue none */
  exclude?: ReadonlySet<string>;
  /**
   * A counter the caller advances on every pick; ties go to `tied[turn % tied.length]`, so
   * equally loaded workers take turns instead of the first one taking everything.
   * @defaultValue 0
   */
  turn?: number;
}

/**
 * Least outstanding requests among the workers not ejected and not excluded, ties taken in turn;
 * suspect workers, and workers on probation with a call outstanding, only when every other one is
 * ejected or passed over too (as gRPC's round_robin skips a connection in transient failure). When every remaining worker is ejected, panic mode: the one whose last failure is the oldest
 * (fewest outstanding among equals) is still tried, since a doubtful worker beats a certain
 * failure. Undefined only when no candidate is left at all.
 */
export function pickWorker(
  workers: readonly WorkerLoad[],
  options: PickOptions = {},
): WorkerPick | undefined {
  const exclude = options.exclude;
  const candidates = exclude ? workers.filter((w) => !exclude.has(w.address)) : workers;
  if (candidates.length === 0) return undefined;
  const turn = Math.max(0, Math.floor(options.turn ?? 0));
  const inRotation = candidates.filter((w) => !w.ejected);
  const trusted = inRotation.filter(
    (w) => w.suspect !== true && !(w.probation === true && w.outstanding > 0),
  );
  const healthy = trusted.length > 0 ? trusted : inRotation;
  if (healthy.length > 0) {
    return {
      address: takeTurn(
        leastBy(healthy, (w) => w.outstanding),
        turn,
      ).address,
      panic: false,
    };
  }
  const oldestFailure = leastBy(candidates, (w) => w.lastFailureAt ?? Number.NEGATIVE_INFINITY);
  const pick = takeTurn(
    leastBy(oldestFailure, (w) => w.outstanding),
    turn,
  );
  return { address: pick.address, panic: true };
}

/** Every element whose key equals the smallest key (non-empty input, non-empty output). */
function leastBy<T>(items: readonly T[], key: (item: T) => number): T[] {
  let best = Number.POSITIVE_INFINITY;
  let tied: T[] = [];
  for (const item of items) {
    const value = key(item);
    if (value < best) {
      best = value;
      tied = [item];
    } else if (value === best) {
      tied.push(item);
    }
  }
  return tied.length > 0 ? tied : [...items];
}

function takeTurn<T>(tied: readonly T[], turn: number): T {
  const item = tied[turn % tied.length];
  if (item === undefined) throw new RangeError('takeTurn needs at least one item');
  return item;
}
