import { type InferenceClient } from '@modelgate/inference-client';
import { type EndpointTable } from '../endpoints/endpoint-table.js';
import { type EndpointTables } from '../endpoints/endpoint-tables.service.js';
import { workerGroupFor } from '../endpoints/worker-discovery.js';
import {
  type EndpointServability,
  type RouteModelFacts,
  decideEndpointServability,
} from './endpoint-servability.js';

/** How long verdicts are reused, in ms: probes, scrapes and heartbeats come every few seconds. */
export const SERVABILITY_MAX_AGE_MS = 1000;

/** Endpoint name → verdict, in the table's endpoint order. */
export type EndpointVerdicts = ReadonlyMap<string, EndpointServability>;

/**
 * Keeps every endpoint's servability verdict for the table in force: each check asks the workers a
 * route's model would be sent to whether they have it ready (ModelReady), then decides per
 * endpoint (endpoint-servability.ts). Checks run on demand, not on a timer: verdicts younger than
 * `maxAgeMs` and of the same table are reused, and a check already running for the table is
 * joined rather than repeated.
 */
export class EndpointServabilityMonitor {
  private verdicts: EndpointVerdicts = new Map();
  private checkedTable: EndpointTable | undefined;
  private checkedAtMs = -Infinity;
  private running: { table: EndpointTable | undefined; done: Promise<EndpointVerdicts> } | undefined;

  constructor(
    private readonly tables: EndpointTables,
    private readonly client: InferenceClient,
    private readonly maxAgeMs = SERVABILITY_MAX_AGE_MS,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The latest verdicts without waiting; starts a check in the background when they are stale. */
  latest(): EndpointVerdicts {
    if (this.isStale()) void this.check().catch(() => undefined);
    return this.verdicts;
  }

  /** Verdicts at most `maxAgeMs` old and of the table in force, checking first when needed. */
  fresh(): Promise<EndpointVerdicts> {
    return this.isStale() ? this.check() : Promise.resolve(this.verdicts);
  }

  private isStale(): boolean {
    return this.tables.current !== this.checkedTable || this.now() - this.checkedAtMs > this.maxAgeMs;
  }

  private check(): Promise<EndpointVerdicts> {
    const table = this.tables.current;
    if (this.running && this.running.table === table) return this.running.done;
    const startedAtMs = this.now();
    const done = this.evaluate(table)
      .then((verdicts) => {
        // Checks of an older table may finish after a newer one's: only the newest is kept.
        if (startedAtMs >= this.checkedAtMs) {
          this.verdicts = verdicts;
          this.checkedTable = table;
          this.checkedAtMs = startedAtMs;
        }
        return verdicts;
      })
      .finally(() => {
        if (this.running?.done === done) this.running = undefined;
      });
    this.running = { table, done };
    return done;
  }

  private async evaluate(table: EndpointTable | undefined): Promise<EndpointVerdicts> {
    if (!table) return new Map();
    const endpoints = [...table.endpoints.values()];
    const ids = new Set(endpoints.flatMap((endpoint) => endpoint.routes.map((route) => route.model)));
    const facts = new Map(
      await Promise.all([...ids].map(async (id) => [id, await this.factsOf(table, id)] as const)),
    );
    const notInConfig: RouteModelFacts = { kind: 'not-in-config' };
    return new Map(
      endpoints.map((endpoint) => [
        endpoint.name,
        decideEndpointServability(endpoint, (id) => facts.get(id) ?? notInConfig),
      ]),
    );
  }

  private async factsOf(table: EndpointTable, id: string): Promise<RouteModelFacts> {
    const model = table.models.get(id);
    if (!model) {
      const reason = table.unservable.get(id);
      return reason === undefined ? { kind: 'not-in-config' } : { kind: 'not-loaded', reason };
    }
    const { spec } = model;
    const addresses = this.client.addressesOf(workerGroupFor(this.client, spec));
    const answers = await Promise.all(
      addresses.map((address) => this.client.modelReady(address, spec.name, spec.version)),
    );
    return {
      kind: 'workers',
      task: spec.task,
      workerGroup: spec.workerGroup,
      workers: addresses.length,
      readyWorkers: answers.filter(Boolean).length,
    };
  }
}
