import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `audit_log`: who changed what, and when. */
@Entity({ name: 'audit_log' })
export class AuditLogEntity {
  /** bigserial: pg returns it as a decimal string. */
  @PrimaryColumn('bigint')
  id!: string;

  @Column('timestamptz', { default: () => 'now()' })
  at!: Date;

  /** `token:<name>` for API calls, `system:<part>` for the registry's own changes. */
  @Column('varchar', { length: 128 })
  actor!: string;

  /** Dotted verb, e.g. `model.register`, `endpoint.routes.set`. */
  @Column('varchar', { length: 64 })
  action!: string;

  /** What was changed, e.g. `model:sst2:1`, `endpoint:sentiment`. */
  @Column('text')
  target!: string;

  @Column('jsonb')
  details!: Record<string, unknown>;
}
