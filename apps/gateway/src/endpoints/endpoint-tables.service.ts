import { type ConfigSnapshot } from '@modelgate/contracts';
import { type InferenceClient } from '@modelgate/inference-client';
import { type Logger } from '@modelgate/observability';
import { type EndpointTable, buildEndpointTable } from './endpoint-table.js';
import { type TokenizerLoader } from './tokenizer-loader.js';

/**
 * Holds the current endpoint table. A new snapshot is built off to the side (tokenizers
 * fetched, worker addresses known) and then swapped in with one assignment, so requests never
 * wait for a change and never see half of one.
 */
export class EndpointTables {
  private table: EndpointTable | undefined;
  /** Applies run one after another so an older build can never replace a newer table. */
  private applying: Promise<void> = Promise.resolve();

  constructor(
    private readonly tokenizers: TokenizerLoader,
    private readonly client: InferenceClient,
    private readonly logger: Logger,
  ) {}

  /** The table requests use now; undefined until the first snapshot is applied. */
  get current(): EndpointTable | undefined {
    return this.table;
  }

  /** Builds and swaps in the table of `snapshot` (older or equal revisions are ignored). */
  apply(snapshot: ConfigSnapshot): Promise<void> {
    const run = this.applying.then(() => this.applyNow(snapshot));
    this.applying = run.catch(() => undefined);
    return run;
  }

  private async applyNow(snapshot: ConfigSnapshot): Promise<void> {
    if (this.table && snapshot.revision <= this.table.revision) return;
    const next = await buildEndpointTable(snapshot, (spec) => this.tokenizers.load(spec));
    for (const [id, reason] of next.unservable)
      this.logger.error({ model: id, reason }, 'model not servable');
    if (snapshot.workerGroups) this.client.setWorkerGroups(snapshot.workerGroups);
    this.table = next;
    this.tokenizers.retain(
      new Set(snapshot.models.flatMap((m) => (m.tokenizer ? [m.tokenizer.sha256] : []))),
    );
    this.logger.info(
      { revision: next.revision, endpoints: next.endpoints.size },
      'endpoint table swapped in',
    );
  }
}
