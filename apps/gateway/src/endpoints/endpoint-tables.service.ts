import { DEFAULT_LOAD_RETRY, type LoadRetryPolicy, loadRetryDelayMs } from '@modelgate/config-sync';
import { type ConfigSnapshot, ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type InferenceClient } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';
import {
  type EndpointTable,
  buildEndpointTable,
  errorMessage,
  loadServable,
  withServable,
  withUnservable,
} from './endpoint-table.js';
import { type TokenizerLoader } from './tokenizer-loader.js';

/**
 * Holds the current endpoint table. A new snapshot is built off to the side (tokenizers
 * fetched, worker addresses known) and then swapped in with one assignment, so requests never
 * wait for a change and never see half of one. A model whose tokenizer could not be loaded is
 * retried with backoff (each success swaps in a table with it servable) until it loads or is
 * given up on; only then does the revision count as applied.
 */
export class EndpointTables {
  private table: EndpointTable | undefined;
  /** Applies and retries run one after another, so an older build can never replace a newer table. */
  private applying: Promise<void> = Promise.resolve();
  /** Models of the current table whose tokenizer is being retried, with the timer of the next try. */
  private readonly retrying = new Map<string, NodeJS.Timeout | undefined>();
  private appliedRevision: number | undefined;

  private readonly retry: LoadRetryPolicy;
  private readonly staticWorkerGroups: boolean;

  /**
   * `options.staticWorkerGroups`: the client was given worker addresses of its own
   * (GATEWAY_WORKER_ADDRESSES), which a snapshot listing workerGroups would replace: such a
   * snapshot is refused rather than let it silently win.
   */
  constructor(
    private readonly tokenizers: TokenizerLoader,
    private readonly client: InferenceClient,
    private readonly logger: Logger,
    options: { retry?: LoadRetryPolicy; staticWorkerGroups?: boolean } = {},
  ) {
    this.retry = options.retry ?? DEFAULT_LOAD_RETRY;
    this.staticWorkerGroups = options.staticWorkerGroups ?? false;
  }

  /** The table requests use now; undefined until the first snapshot is applied. */
  get current(): EndpointTable | undefined {
    return this.table;
  }

  /** The newest revision whose models all became servable or were given up on, if any. */
  get applied(): number | undefined {
    return this.appliedRevision;
  }

  /** Builds and swaps in the table of `snapshot` (older or equal revisions are ignored). */
  apply(snapshot: ConfigSnapshot): Promise<void> {
    return this.enqueue(() => this.applyNow(snapshot));
  }

  /** Stops the retries of the table being replaced. */
  private cancelRetries(): void {
    for (const timer of this.retrying.values()) clearTimeout(timer);
    this.retrying.clear();
  }

  private enqueue(work: () => Promise<void> | void): Promise<void> {
    const run = this.applying.then(work);
    this.applying = run.catch(() => undefined);
    return run;
  }

  private async applyNow(snapshot: ConfigSnapshot): Promise<void> {
    if (this.table && snapshot.revision <= this.table.revision) return;
    if (snapshot.workerGroups && this.staticWorkerGroups) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        `config revision ${snapshot.revision} lists workerGroups, and GATEWAY_WORKER_ADDRESSES gives worker addresses too (the snapshot's would replace them): keep one of the two`,
      );
    }
    const next = await buildEndpointTable(snapshot, this.tokenizers);
    if (snapshot.workerGroups) this.client.setWorkerGroups(snapshot.workerGroups);
    this.cancelRetries();
    this.table = next;
    this.tokenizers.retain(
      new Set(snapshot.models.flatMap((m) => (m.tokenizer ? [m.tokenizer.sha256] : []))),
    );
    for (const [id, reason] of next.unservable) this.failed(snapshot, id, 1, reason);
    this.settle();
    this.logger.info(
      { revision: next.revision, endpoints: next.endpoints.size },
      'endpoint table swapped in',
    );
  }

  /** Attempt `attempt` to make model `id` servable failed: schedule the next one, or give up. */
  private failed(snapshot: ConfigSnapshot, id: string, attempt: number, reason: string): void {
    const delayMs = loadRetryDelayMs(attempt, this.retry);
    this.logger.error(
      { model: id, reason, attempt, retryInMs: delayMs ?? null },
      delayMs === undefined ? 'model not servable; giving up' : 'model not servable; retrying',
    );
    const when =
      delayMs === undefined
        ? `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}`
        : `attempt ${attempt} of ${this.retry.maxAttempts}; retrying in ${delayMs} ms`;
    this.table = withUnservable(this.table!, id, `${reason} (${when})`);
    if (delayMs === undefined) {
      this.retrying.delete(id);
      return;
    }
    const timer = setTimeout(() => {
      this.retrying.set(id, undefined); // due: the try is under way
      void this.retryNow(snapshot, id, attempt + 1);
    }, delayMs);
    timer.unref();
    this.retrying.set(id, timer);
  }

  /**
   * One more try: the fetch runs outside the apply queue (it may take the store's whole timeout,
   * and config changes must not wait for it); only the swap is queued, and skipped when a newer
   * table replaced the one the try was for.
   */
  private async retryNow(snapshot: ConfigSnapshot, id: string, attempt: number): Promise<void> {
    const spec = snapshot.models.find((model) => model.id === id);
    const stale = () => this.table?.revision !== snapshot.revision || !this.retrying.has(id);
    if (!spec || stale()) return;
    const outcome = await loadServable(spec, this.tokenizers).then(
      (model) => ({ model }),
      (error: unknown) => ({ error }),
    );
    await this.enqueue(() => {
      if (stale()) return;
      if ('model' in outcome) {
        this.table = withServable(this.table!, outcome.model);
        this.retrying.delete(id);
        this.logger.info({ model: id, attempt }, 'model servable after a retry');
      } else {
        this.failed(snapshot, id, attempt, errorMessage(outcome.error));
      }
      this.settle();
    });
  }

  /** The current revision is applied once no model of it is waiting for another try. */
  private settle(): void {
    if (this.table && this.retrying.size === 0) this.appliedRevision = this.table.revision;
  }
}
