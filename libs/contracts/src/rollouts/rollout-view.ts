import { type Route } from '../config/endpoint-spec.schema.js';
import { type RolloutEventKind, type RolloutPhase, type RolloutState } from './rollout.schema.js';

/** The limits a rollout judges each window by. */
export interface RolloutThresholdsView {
  maxErrorRate: number;
  /** Absent: p99 is shown, not checked. */
  maxP99Ms?: number;
  minAgreement: number;
  minRequests: number;
}

/** What the gateways saw of the candidate over a window. Rates are 0–1; null where nothing was measured. */
export interface RolloutWindowNumbersView {
  /** Live requests the candidate answered or failed. */
  requests: number;
  /** Of those, failed with a 5xx. */
  errors: number;
  errorRate: number | null;
  p99Ms: number | null;
  /** Requests mirrored to the candidate (shadow phase), answered or failed. */
  mirrored: number;
  mirrorErrors: number;
  /** Mirrored classification rows whose top-1 label agreed / disagreed with the primary's. */
  agreeing: number;
  disagreeing: number;
  agreement: number | null;
}

/** One entry of a rollout's history, oldest first. */
export interface RolloutHistoryEntry {
  /** ISO time. */
  at: string;
  event: RolloutEventKind;
  /** Who: `token:<name>` for a hand-made change, `system:rollouts` for the registry's own. */
  actor: string;
  /** State and phase after the event. */
  state: RolloutState;
  phase: RolloutPhase;
  /** The candidate's share of served traffic after the event, in percent. */
  percent: number;
  reason: string;
  /** The judged window's numbers (window decisions only). */
  window?: RolloutWindowNumbersView;
  /** Consecutive holds folded into this entry (holds only). */
  times?: number;
}

/** The window running now. */
export interface RolloutWindowView {
  startedAt: string;
  /** When it is judged. */
  endsAt: string;
  /** So far; null when the gateways' numbers cannot be read (Redis unreachable). */
  numbers: RolloutWindowNumbersView | null;
}

/** `GET /v1/endpoints/:name/rollout`: a rollout's plan, where it is, and what happened. */
export interface RolloutView {
  id: string;
  endpoint: string;
  /** The primary when it began, `name:version` (null if that model was deleted since). */
  from: string | null;
  /** The candidate, `name:version`. */
  to: string;
  state: RolloutState;
  phase: RolloutPhase;
  /** The candidate's share of served traffic now, in percent. */
  percent: number;
  /** Index of the current live step into `steps`; -1 before the live phase. */
  stepIndex: number;
  steps: number[];
  intervalSeconds: number;
  shadowFirstSeconds: number | null;
  shadowPercent: number;
  thresholds: RolloutThresholdsView;
  /** Present while a window runs. */
  window: RolloutWindowView | null;
  /** While warming up: what the rollout waits for. */
  waitingFor: string | null;
  /** The routes abort and rollback put back. */
  previousRoutes: Route[];
  history: RolloutHistoryEntry[];
  createdAt: string;
  updatedAt: string;
}

/** A rollout in progress as `GET /v1/status` lists it. */
export interface RolloutSummary {
  endpoint: string;
  from: string | null;
  to: string;
  state: RolloutState;
  phase: RolloutPhase;
  percent: number;
  /** ISO time the current window is judged at; null when none runs. */
  nextCheckAt: string | null;
}
