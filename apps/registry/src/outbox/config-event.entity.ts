import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `config_events`, the outbox: one committed config change (DESIGN §3.4). */
@Entity({ name: 'config_events' })
export class ConfigEventEntity {
  /** bigserial: pg returns it as a decimal string. */
  @PrimaryColumn('bigint')
  revision!: string;

  @Column('varchar', { length: 128 })
  actor!: string;

  @Column('text')
  summary!: string;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  /** When the revision was announced on Redis; null until then (the relay retries). */
  @Column('timestamptz', { name: 'published_at', nullable: true })
  publishedAt!: Date | null;
}
