import { z } from 'zod';
import { modelIdSchema } from '../config/spec-fields.schema.js';

/** Every state of a rollout (the `rollouts.state` CHECK). */
export const ROLLOUT_STATES = [
  'PENDING',
  'RUNNING',
  'PAUSED',
  'COMPLETED',
  'ROLLED_BACK',
  'ABORTED',
] as const;

/** One of ROLLOUT_STATES. */
export type RolloutState = (typeof ROLLOUT_STATES)[number];

/** The states of a rollout still in progress: an endpoint has one at most. */
export const ACTIVE_ROLLOUT_STATES: readonly RolloutState[] = ['PENDING', 'RUNNING', 'PAUSED'];

/** warmup (PENDING: workers load the candidate), shadow (mirrored only), live (a canary step), done. */
export const ROLLOUT_PHASES = ['warmup', 'shadow', 'live', 'done'] as const;

/** One of ROLLOUT_PHASES. */
export type RolloutPhase = (typeof ROLLOUT_PHASES)[number];

/** What a rollout's history records. */
export const ROLLOUT_EVENT_KINDS = [
  'start',
  'ready',
  'promote',
  'hold',
  'rollback',
  'pause',
  'resume',
  'abort',
  'force-promote',
] as const;

/** One of ROLLOUT_EVENT_KINDS. */
export type RolloutEventKind = (typeof ROLLOUT_EVENT_KINDS)[number];

/** Canary steps when none are given, in percent of served traffic. */
export const DEFAULT_ROLLOUT_STEPS = [5, 25, 50, 100] as const;

/** Window length when none is given, in seconds. */
export const DEFAULT_ROLLOUT_INTERVAL_SECONDS = 120;

/**
 * Candidate requests (or mirrored rows, in the shadow phase) a window needs before it may promote,
 * when not given: enough to tell a 1 % error rate from zero; a window with fewer holds the step.
 */
export const DEFAULT_ROLLOUT_MIN_REQUESTS = 100;
/** Share of mirrored rows that must agree with the primary when minAgreement is not given. */
export const DEFAULT_ROLLOUT_MIN_AGREEMENT = 0.95;
/** Largest share of failed candidate requests when maxErrorRate is not given. */
export const DEFAULT_ROLLOUT_MAX_ERROR_RATE = 0.01;

/** Percent of requests mirrored in the shadow phase when shadowPercent is not given. */
export const DEFAULT_ROLLOUT_SHADOW_PERCENT = 100;

const rateSchema = z.number().min(0).max(1);

/** `POST /v1/endpoints/:name/rollouts`: start moving an endpoint's traffic to `to`, step by step. */
export const startRolloutSchema = z
  .strictObject({
    to: modelIdSchema.describe("The candidate, `name:version`: a READY model the endpoint's task can serve"),
    steps: z
      .array(z.int().min(1).max(100))
      .min(1)
      .refine((steps) => steps.every((step, i) => i === 0 || step > (steps[i - 1] ?? 0)), {
        message: 'must be strictly ascending, e.g. [5, 25, 50, 100]',
      })
      .refine((steps) => steps.at(-1) === 100, { message: 'must end at 100' })
      .default([...DEFAULT_ROLLOUT_STEPS])
      .describe('Live canary percentages, strictly ascending, ending at 100'),
    intervalSeconds: z
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .optional()
      .describe(
        `Length of each step's window, in seconds (1 s to 7 days; default ${DEFAULT_ROLLOUT_INTERVAL_SECONDS})`,
      ),
    maxErrorRate: rateSchema
      .optional()
      .describe(
        `Largest share of failed candidate requests (5xx), 0–1 (default ${DEFAULT_ROLLOUT_MAX_ERROR_RATE})`,
      ),
    maxP99Ms: z
      .number()
      .positive()
      .optional()
      .describe('Largest candidate p99 latency in the gateway, in ms; not checked when absent'),
    minAgreement: rateSchema
      .optional()
      .describe(
        'Smallest share of mirrored rows whose top-1 label agrees with the primary, 0–1 (default 0.95); ' +
          'rows are mirrored only in the shadow phase, so it needs shadowFirstSeconds',
      ),
    minRequests: z
      .int()
      .min(1)
      .optional()
      .describe(
        `Fewest candidate requests (or mirrored rows) a window needs to be judged (default ${DEFAULT_ROLLOUT_MIN_REQUESTS}): ` +
          'below it a window holds, unless a breach is one that no further requests could undo',
      ),
    shadowFirstSeconds: z
      .int()
      .min(1)
      .max(7 * 24 * 3600)
      .optional()
      .describe(
        'Mirror to the candidate this long before its first live step, in seconds; no shadow phase when absent',
      ),
    shadowPercent: z
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Percent of requests mirrored during the shadow phase (default 100); needs shadowFirstSeconds',
      ),
  })
  .superRefine((input, ctx) => {
    refuseUnjudgedThresholds(input, ctx);
    if (input.shadowFirstSeconds !== undefined) return;
    // Both act only in the shadow phase: accepted without one, they would be stored and do nothing.
    if (input.shadowPercent !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['shadowPercent'],
        message: 'applies to the shadow phase: give shadowFirstSeconds too',
      });
    }
    if (input.minAgreement !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['minAgreement'],
        message:
          'is checked on mirrored rows, which only the shadow phase makes: give shadowFirstSeconds too',
      });
    }
  });

/**
 * `steps: [100]` moves all traffic once the candidate is ready: there is no live window, so the
 * live settings would be stored and never used. Without a shadow phase that is every one of them
 * that is given (a value equal to its default included: given means given); with one, the shadow
 * window (shadowFirstSeconds, again while it holds) judges errors, agreement and volume, so only
 * latency and the live windows' length go unused.
 */
function refuseUnjudgedThresholds(
  input: {
    steps: number[];
    shadowFirstSeconds?: number | undefined;
    intervalSeconds?: number | undefined;
    maxErrorRate?: number | undefined;
    minRequests?: number | undefined;
    maxP99Ms?: number | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  if (input.steps.length !== 1) return;
  const shadow = input.shadowFirstSeconds !== undefined;
  const why = shadow
    ? 'is judged on live windows, and steps [100] has none (the shadow phase judges errors, agreement and volume, not latency): give earlier steps, or leave it out'
    : 'is judged on live windows, and steps [100] has none (all traffic moves once the candidate is ready): give earlier steps, e.g. [5, 25, 50, 100], or leave it out';
  const unused: [string, boolean, string][] = [
    ['maxP99Ms', input.maxP99Ms !== undefined, why],
    [
      'intervalSeconds',
      input.intervalSeconds !== undefined,
      shadow
        ? 'is the length of live windows, and steps [100] has none: the shadow phase is the only window, shadowFirstSeconds long (and again while it holds); give earlier steps, or leave it out'
        : why,
    ],
    ['maxErrorRate', !shadow && input.maxErrorRate !== undefined, why],
    ['minRequests', !shadow && input.minRequests !== undefined, why],
  ];
  for (const [field, given, message] of unused) {
    if (given) ctx.addIssue({ code: 'custom', path: [field], message });
  }
}

/** A validated rollout start. */
export type StartRolloutInput = z.output<typeof startRolloutSchema>;

/** A rollout start as a client sends it (defaults may be left out). */
export type StartRolloutRequest = z.input<typeof startRolloutSchema>;
