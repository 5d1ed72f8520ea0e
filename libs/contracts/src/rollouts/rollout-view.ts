import { z } from 'zod';
import { routeSchema } from '../config/endpoint-spec.schema.js';
import { ROLLOUT_EVENT_KINDS, ROLLOUT_PHASES, ROLLOUT_STATES } from './rollout.schema.js';

/** The limits a rollout judges each window by. */
export const rolloutThresholdsViewSchema = z.object({
  maxErrorRate: z.number(),
  /** Absent: p99 is shown, not checked. */
  maxP99Ms: z.number().optional(),
  minAgreement: z.number(),
  minRequests: z.number(),
});

/** The limits a rollout judges each window by. */
export type RolloutThresholdsView = z.infer<typeof rolloutThresholdsViewSchema>;

/** What the gateways saw of the candidate over a window. Rates are 0–1; null where nothing was measured. */
export const rolloutWindowNumbersViewSchema = z.object({
  /** Live requests the candidate answered or failed. */
  requests: z.number(),
  /** Of those, failed with a 5xx. */
  errors: z.number(),
  errorRate: z.number().nullable(),
  p99Ms: z.number().nullable(),
  /** Requests mirrored to the candidate (shadow phase), answered or failed. */
  mirrored: z.number(),
  mirrorErrors: z.number(),
  /** Mirrored classification rows whose top-1 label agreed / disagreed with the primary's. */
  agreeing: z.number(),
  disagreeing: z.number(),
  agreement: z.number().nullable(),
});

/** What the gateways saw of the candidate over a window. */
export type RolloutWindowNumbersView = z.infer<typeof rolloutWindowNumbersViewSchema>;

/** One entry of a rollout's history, oldest first. */
export const rolloutHistoryEntrySchema = z.object({
  /** ISO time. */
  at: z.string(),
  event: z.enum(ROLLOUT_EVENT_KINDS),
  /** Who: `token:<name>` for a hand-made change, `system:rollouts` for the registry's own. */
  actor: z.string(),
  /** State and phase after the event. */
  state: z.enum(ROLLOUT_STATES),
  phase: z.enum(ROLLOUT_PHASES),
  /** The candidate's share of served traffic after the event, in percent. */
  percent: z.number(),
  reason: z.string(),
  /** The judged window's numbers (window decisions only). */
  window: rolloutWindowNumbersViewSchema.optional(),
  /** Consecutive holds folded into this entry (holds only). */
  times: z.number().optional(),
});

/** One entry of a rollout's history. */
export type RolloutHistoryEntry = z.infer<typeof rolloutHistoryEntrySchema>;

/** The window running now. */
export const rolloutWindowViewSchema = z.object({
  startedAt: z.string(),
  /** When it is judged. */
  endsAt: z.string(),
  /** So far; null when the gateways' numbers cannot be read (Redis unreachable). */
  numbers: rolloutWindowNumbersViewSchema.nullable(),
});

/** The window running now. */
export type RolloutWindowView = z.infer<typeof rolloutWindowViewSchema>;

/** `GET /v1/endpoints/:name/rollout`: a rollout's plan, where it is, and what happened. */
export const rolloutViewSchema = z.object({
  id: z.string(),
  endpoint: z.string(),
  /** The primary when it began, `name:version` (null if that model was deleted since). */
  from: z.string().nullable(),
  /** The candidate, `name:version`. */
  to: z.string(),
  state: z.enum(ROLLOUT_STATES),
  phase: z.enum(ROLLOUT_PHASES),
  /** The candidate's share of served traffic now, in percent. */
  percent: z.number(),
  /** Index of the current live step into `steps`; -1 before the live phase. */
  stepIndex: z.int(),
  steps: z.array(z.number()),
  intervalSeconds: z.number(),
  shadowFirstSeconds: z.number().nullable(),
  shadowPercent: z.number(),
  thresholds: rolloutThresholdsViewSchema,
  /** Present while a window runs. */
  window: rolloutWindowViewSchema.nullable(),
  /** While warming up: what the rollout waits for. */
  waitingFor: z.string().nullable(),
  /** The routes abort and rollback put back. */
  previousRoutes: z.array(routeSchema),
  history: z.array(rolloutHistoryEntrySchema),
  createdAt: z.string(),
  updatedAt: z.string(),
});

/** A rollout as the admin API shows it. */
export type RolloutView = z.infer<typeof rolloutViewSchema>;

/** A rollout in progress as `GET /v1/status` lists it. */
export const rolloutSummarySchema = z.object({
  endpoint: z.string(),
  from: z.string().nullable(),
  to: z.string(),
  state: z.enum(ROLLOUT_STATES),
  phase: z.enum(ROLLOUT_PHASES),
  percent: z.number(),
  /** ISO time the current window is judged at; null when none runs. */
  nextCheckAt: z.string().nullable(),
});

/** A rollout in progress as `GET /v1/status` lists it. */
export type RolloutSummary = z.infer<typeof rolloutSummarySchema>;
