import {
  type GenerationDefaults,
  type ModelTask,
  type PostprocessingConfig,
  type PreprocessingConfig,
} from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `endpoints`: one public `/serve/<name>` endpoint. */
@Entity({ name: 'endpoints' })
export class EndpointEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('varchar', { length: 63 })
  name!: string;

  @Column('varchar', { length: 32 })
  task!: ModelTask;

  /** Defaults applied. */
  @Column('jsonb')
  preprocessing!: PreprocessingConfig;

  @Column('jsonb')
  postprocessing!: PostprocessingConfig;

  @Column('varchar', { name: 'sticky_header', length: 128, nullable: true })
  stickyHeader!: string | null;

  @Column('integer', { name: 'timeout_ms', nullable: true })
  timeoutMs!: number | null;

  /** text-generation: the endpoint's decoding defaults (empty: the model's alone). */
  @Column('jsonb', { default: () => "'{}'::jsonb" })
  generation!: GenerationDefaults;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
