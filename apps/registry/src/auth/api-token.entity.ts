import { Column, Entity, PrimaryColumn } from 'typeorm';

/** What a token may do: admins mutate, viewers read. */
export const TOKEN_ROLES = ['admin', 'viewer'] as const;

/** One of TOKEN_ROLES. */
export type TokenRole = (typeof TOKEN_ROLES)[number];

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
