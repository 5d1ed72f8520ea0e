/**
 * Whether one endpoint can be served by this gateway now, as a pure function of what the gateway
 * knows of the models its routes send traffic to. Applied in order:
 *
 *  1. The routes that take traffic are those with weight > 0 that are not shadows (a shadow never
 *     answers a client). None → not servable: "no route takes traffic".
 *  2. A route's model is servable when it is in the configuration, loaded here (its tokenizer;
 *     {@link RouteModelFacts} `not-loaded` otherwise), of a task the endpoint can serve (a raw
 *     endpoint cannot serve a generative model: rawEndpointRefusal), and at least one worker has
 *     it ready.
 *  3. The endpoint is servable when every route that takes traffic is: a request picks its route
 *     before it can know whether that model answers, so one unservable route fails its share.
 *     The reason names each unservable model, in route order.
 *
 * The verdict is reported (metric, readiness body, heartbeat); it never gates readiness
 * (readiness.ts says why).
 */
import { type EndpointSpec, type ModelTask, rawEndpointRefusal } from '@modelgate/contracts';

/** What the gateway knows of one model a route points at. */
export type RouteModelFacts =
  | { readonly kind: 'not-in-config' }
  /** The gateway could not load what it needs to serve it (its tokenizer), with why. */
  | { readonly kind: 'not-loaded'; readonly reason: string }
  /** Its workers: how many the gateway would call, and how many of those have it ready. */
  | {
      readonly kind: 'workers';
      /** The model's task, checked against a raw endpoint's. */
      readonly task?: ModelTask;
      readonly workerGroup: string;
      readonly workers: number;
      readonly readyWorkers: number;
    };

/** One endpoint's verdict; `reason` says what is missing when it is not servable. */
export interface EndpointServability {
  readonly ready: boolean;
  readonly reason?: string;
}

/** Decides whether `endpoint` is servable (rules in this file's top comment). */
export function decideEndpointServability(
  endpoint: Pick<EndpointSpec, 'routes'> & { task?: ModelTask },
  factsOf: (modelId: string) => RouteModelFacts,
): EndpointServability {
  const served = endpoint.routes.filter((route) => route.role !== 'shadow' && route.weight > 0);
  if (served.length === 0) return { ready: false, reason: 'no route takes traffic' };
  const problems = served.flatMap((route) => {
    const problem = describeProblem(route.model, factsOf(route.model), endpoint.task);
    return problem === undefined ? [] : [problem];
  });
  return problems.length === 0 ? { ready: true } : { ready: false, reason: problems.join('; ') };
}

/** Why model `id` cannot take its route's traffic, or undefined when it can. */
function describeProblem(id: string, facts: RouteModelFacts, endpointTask?: ModelTask): string | undefined {
  switch (facts.kind) {
    case 'not-in-config':
      return `model ${id} is not in the configuration`;
    case 'not-loaded':
      return `model ${id} is not loaded on this gateway: ${facts.reason}`;
    case 'workers': {
      const refusal =
        endpointTask === 'raw' && facts.task !== undefined ? rawEndpointRefusal(facts.task) : undefined;
      if (refusal !== undefined) return `model ${id}: ${refusal}`;
      if (facts.workers === 0) return `model ${id}: worker group '${facts.workerGroup}' has no workers`;
      if (facts.readyWorkers === 0) {
        const asked = facts.workers === 1 ? '1 worker asked' : `${facts.workers} workers asked`;
        return `model ${id}: no worker of group '${facts.workerGroup}' has it ready (${asked})`;
      }
      return undefined;
    }
  }
}
