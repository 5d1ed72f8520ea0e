import { type TokenRole } from '@modelgate/contracts';
import { Column, Entity, PrimaryColumn } from 'typeorm';

/** A row of `api_tokens`. The token itself is never stored, only its sha256. */
@Entity({ name: 'api_tokens' })
export class ApiTokenEntity {
  @PrimaryColumn('uuid')
  id!: string;

  @Column('varchar', { length: 63 })
  name!: string;

  @Column('char', { name: 'token_sha256', length: 64 })
  tokenSha256!: string;

  @Column('varchar', { length: 16 })
  role!: TokenRole;

  @Column('timestamptz', { name: 'created_at', default: () => 'now()' })
  createdAt!: Date;

  @Column('timestamptz', { name: 'revoked_at', nullable: true })
  revokedAt!: Date | null;
}
