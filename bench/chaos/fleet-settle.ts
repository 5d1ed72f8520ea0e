/** Waiting for the chaos fleet to be whole again: every node running, ready and up to date. */
import { waitFor } from '@modelgate/testing';
import { type ChaosStack } from './chaos-stack.js';

/** What keeps the fleet from being whole, or undefined when it is. */
async function fleetGap(stack: ChaosStack, fleetSize: number): Promise<string | undefined> {
  const snapshot = await stack.registry.admin.configSnapshot();
  const latest = snapshot.revision;
  const revisions = await stack.nodeRevisions();
  if (revisions.length < fleetSize * 2) return `${revisions.length} of ${fleetSize * 2} nodes running`;
  const behind = revisions.filter((node) => node.revision === null || node.revision < latest);
  if (behind.length > 0) {
    return `latest revision ${latest}; ${behind.map((node) => `${node.node} at ${node.revision}`).join(', ')}`;
  }
  const status = await stack.registry.admin.status();
  const routed = new Set(
    snapshot.endpoints.flatMap((endpoint) => endpoint.routes.map((route) => route.model)),
  );
  const serving = (role: string) =>
    status.nodes.filter(
      (node) =>
        node.role === role &&
        node.lag === 0 &&
        // A worker (one worker group) serves every routed model and has nothing left loading or draining.
        (role !== 'worker' ||
          ([...routed].every((model) => node.models[model] === 'READY') &&
            Object.values(node.models).every((state) => state === 'READY'))),
    ).length;
  // Heartbeats: the gateways discover workers from them, so a replaced worker counts once it beats.
  if (serving('worker') !== fleetSize || serving('gateway') !== fleetSize) {
    return `registry status: ${JSON.stringify(status.nodes)}`;
  }
  for (const url of stack.gatewayUrls) {
    const ready = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(1000) });
    if (ready.status !== 200) return `gateway ${url} not ready: ${await ready.text()}`;
  }
  return undefined;
}

/** Waits (90 s at most) until `fleetSize` workers and as many gateways run, are ready and have applied the latest revision. */
export async function settleFleet(stack: ChaosStack, fleetSize: number): Promise<void> {
  let gap: string | undefined = 'not checked yet';
  await waitFor(
    async () => {
      gap = await fleetGap(stack, fleetSize);
      return gap === undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250, describe: () => `the fleet did not settle: ${gap}` },
  );
}
