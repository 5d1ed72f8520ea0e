/**
 * The soak's config changes, one a minute, in turn: a canary weight on the sentiment endpoint (as
 * `modelgate route set` makes it), a setting of the QA endpoint (its deadline, as `modelgate
 * endpoint update` makes it), and a new version of the image model replacing the old one the way
 * an operator does it: register it, wait until every worker has loaded it, route the endpoint to
 * it, then remove the old version. After each the whole fleet must be at the new revision again.
 */
import { waitFor } from '@modelgate/testing';
import { registerModelVersion } from '../register-deployment.js';
import { type ChaosStack, FLEET_SIZE } from './chaos-stack.js';
import { CanaryWeights } from './config-change.js';
import { settleFleet } from './fleet-settle.js';
import { epochMs } from './load-records.js';
import { SOAK_IMAGE, SOAK_QA } from './soak-mix.js';

/** One change as the soak reports it. */
export interface SoakChangeRecord {
  /** Seconds after the load started. */
  atS: number;
  /** What was changed, e.g. `canary minilm:2 10 → 15 %`. */
  change: string;
  /** Seconds until every node had applied it (after its last step). */
  settledS?: number;
  /** Why it failed: the registry's refusal, or the fleet not settling. */
  error?: string;
}

/** The QA endpoint's deadlines the soak switches between, ms. */
const QA_TIMEOUTS_MS = [20_000, 25_000] as const;

const reason = (error: unknown) => (error instanceof Error ? error.message.slice(0, 2000) : String(error));

/** Makes the next change of the cycle each time it is called. */
export class SoakChanges {
  readonly #weights = new CanaryWeights();
  #made = 0;

  constructor(
    private readonly stack: ChaosStack,
    private readonly dir: string,
    private readonly loadStartMs: number,
  ) {}

  /** Makes one change and waits for the fleet to apply it. */
  async next(): Promise<SoakChangeRecord> {
    const atS = Math.round(epochMs() - this.loadStartMs) / 1000;
    const turn = this.#made++ % 3;
    let change = '';
    try {
      if (turn === 0) change = await this.#canaryWeight();
      else if (turn === 1) change = await this.#qaTimeout();
      else change = await this.#imageVersionSwap();
      const appliedFrom = epochMs();
      await settleFleet(this.stack, FLEET_SIZE);
      return { atS, change, settledS: Math.round(epochMs() - appliedFrom) / 1000 };
    } catch (error) {
      return {
        atS,
        change: change || ['canary weight', 'QA deadline', 'image version'][turn]!,
        error: reason(error),
      };
    }
  }

  async #canaryWeight(): Promise<string> {
    const { from, to } = this.#weights.next();
    const answer = await this.stack.setCanaryWeight(to);
    if (answer.status !== 200) throw new Error(`route set answered ${answer.status}`);
    return `canary minilm:2 ${from} → ${to} %`;
  }

  async #qaTimeout(): Promise<string> {
    const timeoutMs = QA_TIMEOUTS_MS[Math.floor(this.#made / 3) % 2]!;
    await this.stack.registry.admin.updateEndpoint(SOAK_QA.endpoint, { timeoutMs });
    return `endpoint ${SOAK_QA.endpoint} timeoutMs → ${timeoutMs}`;
  }

  /**
   * From whatever the registry holds (a swap cut short earlier leaves its version behind): the
   * newest version of the image model plus one is registered, loaded everywhere, routed to, and
   * every other version removed.
   */
  async #imageVersionSwap(): Promise<string> {
    const admin = this.stack.registry.admin;
    const versions = (await admin.listModels(SOAK_IMAGE.model)).map((model) => Number(model.version));
    const version = Math.max(0, ...versions) + 1;
    const next = `${SOAK_IMAGE.model}:${version}`;
    await registerModelVersion(admin, SOAK_IMAGE, this.dir, version);
    await waitFor(
      async () => {
        const workers = (await admin.status()).nodes.filter((node) => node.role === 'worker');
        return workers.length === FLEET_SIZE && workers.every((node) => node.models[next] === 'READY');
      },
      { timeoutMs: 60_000, intervalMs: 250, describe: () => `every worker to load ${next}` },
    );
    await admin.setRoutes(SOAK_IMAGE.endpoint, [{ model: next, weight: 100, role: 'primary' }]);
    await settleFleet(this.stack, FLEET_SIZE);
    for (const old of versions) await admin.removeModel({ name: SOAK_IMAGE.model, version: String(old) });
    return `${SOAK_IMAGE.endpoint}: ${versions.map((old) => `${SOAK_IMAGE.model}:${old}`).join(', ')} → ${next}, the old removed`;
  }
}
