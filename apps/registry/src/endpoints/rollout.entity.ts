import {
  type Route,
  type RolloutHistoryEntry,
  type RolloutPhase,
  type RolloutState,
  type RolloutThresholdsView,
} from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { type TrafficBaseline } from '../rollouts/rollout-window.js';

/**
 * A row of `rollouts`: a stepped move of an endpoint's traffic from one model to another, its plan,
 * where it is and what happened (rollouts/ drives it).
 */
@Entity({ name: 'rollouts' })
export class RolloutEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'endpoint_id' })
  endpointId!: string;

  /** The primary it moves traffic from; null once that model is deleted. */
  @Column('uuid', { name: 'from_model_id', nullable: true })
  fromModelId!: string | null;

  /** The candidate; null once that model is deleted (only after the rollout ended). */
  @Column('uuid', { name: 'to_model_id', nullable: true })
  toModelId!: string | null;

  /** `name:version` of the primary at the start, kept when the model is deleted. */
  @Column('varchar', { name: 'from_model', length: 80, nullable: true })
  fromModel!: string | null;

  /** `name:version` of the candidate. */
  @Column('varchar', { name: 'to_model', length: 80 })
  toModel!: string;

  /** Canary percentages to step through, e.g. [5, 25, 50, 100]. */
  @Column('jsonb')
  steps!: number[];

  @Column('integer', { name: 'interval_seconds' })
  intervalSeconds!: number;

  /** maxErrorRate, maxP99Ms (absent: not checked), minAgreement, minRequests. */
  @Column('jsonb')
  thresholds!: RolloutThresholdsView;

  @Column('integer', { name: 'shadow_first_seconds', nullable: true })
  shadowFirstSeconds!: number | null;

  @Column('smallint', { name: 'shadow_percent' })
  shadowPercent!: number;

  @Column('varchar', { length: 16 })
  state!: RolloutState;

  @Column('varchar', { length: 16 })
  phase!: RolloutPhase;

  /** Index into steps in the live phase; -1 before it. */
  @Column('integer', { name: 'step_index' })
  stepIndex!: number;

  /** The endpoint's routes when the rollout started: what abort and rollback put back. */
  @Column('jsonb', { name: 'previous_routes' })
  previousRoutes!: Route[];

  @Column('timestamptz', { name: 'window_started_at', nullable: true })
  windowStartedAt!: Date | null;

  /** When the driver next looks at it (the window's end; now while warming up). */
  @Column('timestamptz', { name: 'next_check_at', nullable: true })
  nextCheckAt!: Date | null;

  /** The candidate's traffic counters per gateway at the window's start (rollout-window.ts). */
  @Column('jsonb', { name: 'window_baseline', nullable: true })
  windowBaseline!: TrafficBaseline | null;

  @Column('timestamptz', { name: 'candidate_ready_at', nullable: true })
  candidateReadyAt!: Date | null;

  /** Decision history, oldest first. */
  @Column('jsonb')
  history!: RolloutHistoryEntry[];

  /** Bumped by every change: a replica acts only on the version it read. */
  @Column('integer')
  version!: number;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
