import { type VersionPolicy } from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `model_version_policies`: which READY versions of one model workers load. */
@Entity({ name: 'model_version_policies' })
export class VersionPolicyEntity {
  @PrimaryColumn('varchar', { name: 'model_name', length: 63 })
  modelName!: string;

  /** Validated by versionPolicySchema before it is written. */
  @Column('jsonb')
  policy!: VersionPolicy;

  @Column('timestamptz', { name: 'updated_at', default: () => 'now()' })
  updatedAt!: Date;
}
