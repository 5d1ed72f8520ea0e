import { type WorkerChannel, type WorkerChannelFactory } from './worker-channel.js';

/** The addresses of one worker group (the shape of a snapshot's `workerGroups` entries). */
export interface WorkerGroupAddresses {
  /** Group name, as models' `workerGroup` refers to it (a model id works as well). */
  name: string;
  /** gRPC targets of the group's workers, e.g. `10.0.0.7:8001`. */
  addresses: readonly string[];
}

/** Call counts of one worker, as seen by this client. */
export interface WorkerCallCounts {
  /** Calls running now. */
  outstanding: number;
  /** Calls sent since the channel was created. */
  calls: number;
}

interface WorkerEntry extends WorkerCallCounts {
  readonly address: string;
  readonly channel: WorkerChannel;
  /** Rows of the calls running now (a call counts its rows, at least 1). */
  load: number;
  /** No group lists the address any more: close once the last running call ends. */
  retired: boolean;
}

/**
 * The channels to workers, one per address, and the groups that list them. Replacing the groups
 * keeps the channels of addresses that stay; a channel whose address left every group is closed
 * once its running calls end. Calls to addresses outside every group (explicit `addresses`)
 * get a channel on demand, closed at the next group change that does not list them.
 */
export class WorkerPool {
  private readonly groups = new Map<string, readonly string[]>();
  /** The live channel of each address. */
  private readonly workers = new Map<string, WorkerEntry>();
  /** Retired channels whose last calls are still running. */
  private readonly draining = new Set<WorkerEntry>();
  private readonly onDrained = new Set<() => void>();
  private closed = false;

  constructor(private readonly createChannel: WorkerChannelFactory) {}

  /** Replaces every group at once (e.g. from a new config snapshot). */
  setGroups(groups: Iterable<WorkerGroupAddresses>): void {
    this.groups.clear();
    for (const group of groups) this.groups.set(group.name, unique(group.addresses));
    this.retireUnlisted();
  }

  /** Sets (or, with no addresses, removes) one group. */
  setGroup(name: string, addresses: readonly string[]): void {
    if (addresses.length === 0) this.groups.delete(name);
    else this.groups.set(name, unique(addresses));
    this.retireUnlisted();
  }

  /** The addresses of group `name`, or an empty list when there is no such group. */
  addressesOf(name: string): readonly string[] {
    return this.groups.get(name) ?? [];
  }

  /** Every address some group lists. */
  listedAddresses(): Set<string> {
    const listed = new Set<string>();
    for (const addresses of this.groups.values()) for (const address of addresses) listed.add(address);
    return listed;
  }

  /** Rows of the calls running now on `address`: what balancing compares (0 when it has no channel). */
  load(address: string): number {
    return this.workers.get(address)?.load ?? 0;
  }

  /** Call counts per address with a live channel. */
  counts(): Map<string, WorkerCallCounts> {
    const counts = new Map<string, WorkerCallCounts>();
    for (const entry of this.workers.values()) {
      counts.set(entry.address, { outstanding: entry.outstanding, calls: entry.calls });
    }
    return counts;
  }

  /**
   * Runs `call` on the channel of `address` (created if needed), counted as outstanding meanwhile
   * with `rows` rows of load.
   */
  async run<T>(address: string, call: (channel: WorkerChannel) => Promise<T>, rows = 1): Promise<T> {
    const lease = this.acquire(address, rows);
    try {
      return await call(lease.channel);
    } finally {
      lease.release();
    }
  }

  /**
   * The channel of `address`, counted as outstanding until `release` (idempotent) is called: for
   * calls that outlive one promise, such as a generation stream.
   */
  acquire(address: string, rows = 1): { channel: WorkerChannel; release: () => void } {
    const entry = this.entryFor(address);
    const load = Math.max(1, rows);
    entry.outstanding++;
    entry.load += load;
    entry.calls++;
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      entry.outstanding--;
      entry.load -= load;
      if (entry.retired && entry.outstanding === 0) this.closeEntry(entry);
    };
    return { channel: entry.channel, release };
  }

  /** True once `close` was called. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Closes idle channels now and the others when their running calls end; resolves then. */
  close(): Promise<void> {
    this.closed = true;
    this.groups.clear();
    this.retireUnlisted();
    if (this.draining.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.onDrained.add(resolve));
  }

  private entryFor(address: string): WorkerEntry {
    let entry = this.workers.get(address);
    if (entry === undefined) {
      entry = {
        address,
        channel: this.createChannel(address),
        outstanding: 0,
        load: 0,
        calls: 0,
        retired: false,
      };
      this.workers.set(address, entry);
    }
    return entry;
  }

  private retireUnlisted(): void {
    const listed = this.listedAddresses();
    for (const entry of [...this.workers.values()]) {
      if (listed.has(entry.address)) continue;
      entry.retired = true;
      this.workers.delete(entry.address);
      if (entry.outstanding === 0) entry.channel.close();
      else this.draining.add(entry);
    }
  }

  private closeEntry(entry: WorkerEntry): void {
    entry.channel.close();
    this.draining.delete(entry);
    if (this.closed && this.draining.size === 0) {
      for (const resolve of this.onDrained) resolve();
      this.onDrained.clear();
    }
  }
}

function unique(addresses: readonly string[]): string[] {
  return [...new Set(addresses)];
}
