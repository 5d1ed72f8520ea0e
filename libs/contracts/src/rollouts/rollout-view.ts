import { z } from 'zod';
import { routeSchema } from '../config/endpoint-spec.schema.js';
import { ROLLOUT_EVENT_KINDS, ROLLOUT_PHASES, ROLLOUT_STATES } from './rollout.schema.js';

/** The limits a rollout judges each window by. */
export const rolloutThresholdsViewSchema = z.object({
  maxErrorRate: z.number().describe('Largest share of failed candidate requests (5xx), 0–1.'),
  maxP99Ms: z.number().optional().describe('Absent: p99 is shown, not checked.'),
  minAgreement: z
    .number()
    .describe(
      "Smallest share of mirrored rows whose answer (top class or generated text) agrees with the primary's, 0–1.",
    ),
  minRequests: z.number().describe('Fewest candidate requests (or mirrored rows) a window needs to promote.'),
});

/** The limits a rollout judges each window by. */
export type RolloutThresholdsView = z.infer<typeof rolloutThresholdsViewSchema>;

/** What the gateways saw of the candidate over a window. Rates are 0–1; null where nothing was measured. */
export const rolloutWindowNumbersViewSchema = z.object({
  requests: z.number().describe('Live requests the candidate answered or failed.'),
  errors: z.number().describe('Of those, failed with a 5xx.'),
  errorRate: z.number().nullable().describe('errors / requests.'),
  p99Ms: z.number().nullable().describe("The candidate's p99 latency in the gateway, in ms."),
  mirrored: z.number().describe('Requests mirrored to the candidate (shadow phase), answered or failed.'),
  mirrorErrors: z.number().describe('Of those, failed.'),
  agreeing: z
    .number()
    .describe("Mirrored rows whose answer (top class or generated text) agreed with the primary's."),
  disagreeing: z.number().describe("Mirrored rows whose answer differed from the primary's."),
  agreement: z.number().nullable().describe('agreeing / (agreeing + disagreeing).'),
  uncompared: z
    .number()
    .optional()
    .describe(
      'Mirrored rows left out of the agreement: generations sampled without a seed, which two models cannot be expected to answer alike. Absent in windows recorded before it was reported.',
    ),
  comparesAnswers: z
    .boolean()
    .optional()
    .describe(
      "Whether the endpoint's answers are compared row by row: the shadow phase then counts compared rows toward minRequests, otherwise answered mirrors. Absent in windows recorded before it was reported.",
    ),
});

/** What the gateways saw of the candidate over a window. */
export type RolloutWindowNumbersView = z.infer<typeof rolloutWindowNumbersViewSchema>;

/** One entry of a rollout's history, oldest first. */
export const rolloutHistoryEntrySchema = z.object({
  at: z.string().describe('ISO time.'),
  event: z.enum(ROLLOUT_EVENT_KINDS).describe('What happened.'),
  actor: z
    .string()
    .describe("Who: `token:<name>` for a hand-made change, `system:rollouts` for the registry's own."),
  state: z.enum(ROLLOUT_STATES).describe('State after the event.'),
  phase: z.enum(ROLLOUT_PHASES).describe('Phase after the event.'),
  percent: z.number().describe("The candidate's share of served traffic after the event, in percent."),
  reason: z.string().describe('Why, in words.'),
  window: rolloutWindowNumbersViewSchema
    .optional()
    .describe("The judged window's numbers (window decisions only)."),
  times: z.number().optional().describe('Consecutive holds folded into this entry (holds only).'),
});

/** One entry of a rollout's history. */
export type RolloutHistoryEntry = z.infer<typeof rolloutHistoryEntrySchema>;

/** The window running now. */
export const rolloutWindowViewSchema = z.object({
  startedAt: z.string().describe('When it began, ISO time.'),
  endsAt: z.string().describe('When it is judged, ISO time.'),
  numbers: rolloutWindowNumbersViewSchema
    .nullable()
    .describe("So far; null when the gateways' numbers cannot be read (Redis unreachable)."),
});

/** The window running now. */
export type RolloutWindowView = z.infer<typeof rolloutWindowViewSchema>;

/** `GET /v1/endpoints/:name/rollout`: a rollout's plan, where it is, and what happened. */
export const rolloutViewSchema = z.object({
  id: z.string().describe("The rollout's id."),
  endpoint: z.string().describe('The endpoint whose traffic it moves.'),
  from: z
    .string()
    .nullable()
    .describe('The primary when it began, `name:version` (null if that model was deleted since).'),
  to: z.string().describe('The candidate, `name:version`.'),
  state: z
    .enum(ROLLOUT_STATES)
    .describe('PENDING, RUNNING and PAUSED are in progress; the others are final.'),
  phase: z
    .enum(ROLLOUT_PHASES)
    .describe('warmup (workers load the candidate), shadow (mirrored only), live (a canary step), done.'),
  percent: z.number().describe("The candidate's share of served traffic now, in percent."),
  stepIndex: z.int().describe('Index of the current live step into `steps`; -1 before the live phase.'),
  steps: z.array(z.number()).describe('Live canary percentages, ascending, ending at 100.'),
  intervalSeconds: z.number().describe("Length of each step's window, in seconds."),
  shadowFirstSeconds: z
    .number()
    .nullable()
    .describe(
      'Mirror to the candidate this long before its first live step, in seconds; null: no shadow phase.',
    ),
  shadowPercent: z.number().describe('Percent of requests mirrored during the shadow phase.'),
  thresholds: rolloutThresholdsViewSchema.describe('The limits each window is judged by.'),
  window: rolloutWindowViewSchema.nullable().describe('Present while a window runs.'),
  waitingFor: z.string().nullable().describe('While warming up: what the rollout waits for.'),
  previousRoutes: z.array(routeSchema).describe('The routes abort and rollback put back.'),
  history: z.array(rolloutHistoryEntrySchema).describe('What happened, oldest first.'),
  createdAt: z.string().describe('When it was started, ISO time.'),
  updatedAt: z.string().describe('When it last changed, ISO time.'),
});

/** A rollout as the admin API shows it. */
export type RolloutView = z.infer<typeof rolloutViewSchema>;

/** A rollout in progress as `GET /v1/status` lists it. */
export const rolloutSummarySchema = z.object({
  endpoint: z.string().describe('The endpoint whose traffic it moves.'),
  from: z.string().nullable().describe('The primary when it began, `name:version` (null if deleted since).'),
  to: z.string().describe('The candidate, `name:version`.'),
  state: z.enum(ROLLOUT_STATES).describe('PENDING, RUNNING or PAUSED.'),
  phase: z.enum(ROLLOUT_PHASES).describe('warmup, shadow, live or done.'),
  percent: z.number().describe("The candidate's share of served traffic now, in percent."),
  nextCheckAt: z
    .string()
    .nullable()
    .describe('ISO time the current window is judged at; null when none runs.'),
});

/** A rollout in progress as `GET /v1/status` lists it. */
export type RolloutSummary = z.infer<typeof rolloutSummarySchema>;
