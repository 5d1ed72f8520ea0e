import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `rollouts`: a stepped canary from one model to another (the table only, for now). */
@Entity({ name: 'rollouts' })
export class RolloutEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('uuid', { name: 'endpoint_id' })
  endpointId!: string;

  @Column('uuid', { name: 'from_model_id', nullable: true })
  fromModelId!: string | null;

  @Column('uuid', { name: 'to_model_id' })
  toModelId!: string;

  /** Canary weights to step through, e.g. [10, 25, 50, 100]. */
  @Column('jsonb')
  steps!: number[];

  @Column('integer', { name: 'interval_seconds' })
  intervalSeconds!: number;

  @Column('jsonb')
  thresholds!: Record<string, unknown>;

  @Column('varchar', { length: 16 })
  state!: string;

  @Column('jsonb')
  history!: unknown[];

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
