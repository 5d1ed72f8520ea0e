import { generateToken } from '@modelgate/contracts';
import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  type CreatedTokenView,
  ErrorCode,
  ModelgateError,
  type TokenRole,
  type TokenView,
} from '@modelgate/contracts';
import { DataSource, IsNull } from 'typeorm';
import { type Actor } from '../outbox/actor.js';
import { ConfigChangesService } from '../outbox/config-changes.service.js';
import { ApiTokenEntity } from './api-token.entity.js';
import { type Principal } from './principal.js';
import { digestsEqual, hashToken } from './token-secret.js';

/** Postgres' SQLSTATE for a unique index violation. */
const UNIQUE_VIOLATION = '23505';

/** Name of the first admin token (REGISTRY_BOOTSTRAP_TOKEN, or generated at the first start). */
export const BOOTSTRAP_TOKEN_NAME = 'bootstrap';

/** What {@link TokensService.ensureBootstrapToken} found or did. */
export type BootstrapOutcome =
  /** A token was generated (no token existed): shown once, by the caller. */
  | { kind: 'generated'; token: string }
  /** REGISTRY_BOOTSTRAP_TOKEN was given, but the bootstrap token is revoked: the value grants nothing. */
  | { kind: 'revoked' }
  /** The bootstrap token (or another token) exists as configured. */
  | { kind: 'ready' };

/** API tokens: created with a random secret shown once, stored as sha256, revoked not deleted. */
@Injectable()
export class TokensService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly changes: ConfigChangesService,
  ) {}

  /** The principal of an unrevoked token, or undefined. */
  async authenticate(token: string): Promise<Principal | undefined> {
    const digest = hashToken(token);
    const row = await this.dataSource
      .getRepository(ApiTokenEntity)
      .findOneBy({ tokenSha256: digest, revokedAt: IsNull() });
    // The lookup is by digest; the compare is constant-time anyway, so no timing depends on the secret.
    if (row === null || !digestsEqual(row.tokenSha256, digest)) return undefined;
    return { tokenName: row.name, role: row.role };
  }

  /** Creates a token; the returned secret is never shown again. */
  async create(actor: Actor, name: string, role: TokenRole): Promise<CreatedTokenView> {
    const token = generateToken();
    const view = await this.changes.apply(actor, { configChange: false }, async (manager) => {
      const repository = manager.getRepository(ApiTokenEntity);
      if (await repository.existsBy({ name })) {
        throw new ModelgateError(ErrorCode.CONFLICT, `a token named '${name}' already exists`, {
          field: 'name',
        });
      }
      const row = repository.create({ id: randomUUID(), name, role, tokenSha256: hashToken(token) });
      try {
        await repository.insert(row);
      } catch (error) {
        // The same name created at once by another call: the unique index answers for the check above.
        if ((error as { code?: unknown }).code !== UNIQUE_VIOLATION) throw error;
        throw new ModelgateError(ErrorCode.CONFLICT, `a token named '${name}' already exists`, {
          field: 'name',
        });
      }
      const saved = await repository.findOneByOrFail({ id: row.id });
      return {
        value: toTokenView(saved),
        action: 'token.create',
        target: `token:${name}`,
        details: { role },
      };
    });
    return { ...view, token };
  }

  /** Every token, revoked ones included. */
  async list(): Promise<TokenView[]> {
    const rows = await this.dataSource.getRepository(ApiTokenEntity).find({ order: { name: 'ASC' } });
    return rows.map(toTokenView);
  }

  /** Revokes a token; refuses to revoke the last active admin token, which would lock everyone out. */
  async revoke(actor: Actor, name: string): Promise<TokenView> {
    return this.changes.apply(actor, { configChange: false }, async (manager) => {
      const repository = manager.getRepository(ApiTokenEntity);
      // Every active admin row first, locked in one order: two admins revoking each other at once
      // then wait for one another, and the second sees the first's revoke (a count alone did not,
      // and both went through, leaving no admin).
      const admins = await repository.find({
        where: { role: 'admin', revokedAt: IsNull() },
        order: { id: 'ASC' },
        lock: { mode: 'pessimistic_write' },
      });
      const row = await repository.findOne({ where: { name }, lock: { mode: 'pessimistic_write' } });
      if (row === null) throw new ModelgateError(ErrorCode.NOT_FOUND, `no token named '${name}'`);
      if (row.revokedAt === null && row.role === 'admin') {
        if (admins.every((admin) => admin.id === row.id)) {
          throw new ModelgateError(
            ErrorCode.CONFLICT,
            `'${name}' is the last active admin token; create another admin token before revoking it`,
          );
        }
      }
      if (row.revokedAt === null) {
        await repository.update({ id: row.id }, { revokedAt: () => 'now()' });
      }
      const saved = await repository.findOneByOrFail({ id: row.id });
      return { value: toTokenView(saved), action: 'token.revoke', target: `token:${name}` };
    });
  }

  /**
   * Makes sure the first admin token exists. With `fromEnv`, a `bootstrap` token with that
   * secret is created, or its secret replaced, unless it was revoked: a revoke sticks, and the
   * outcome says the value was ignored so the caller can say so. Without, a random one is created
   * only when there are no tokens at all, and returned so the caller can print it once.
   */
  async ensureBootstrapToken(fromEnv: string | undefined): Promise<BootstrapOutcome> {
    const repository = this.dataSource.getRepository(ApiTokenEntity);
    if (fromEnv !== undefined) {
      const digest = hashToken(fromEnv);
      const existing = await repository.findOneBy({ name: BOOTSTRAP_TOKEN_NAME });
      if (existing === null) {
        await this.#insertBootstrap(digest);
      } else if (existing.revokedAt !== null) {
        return { kind: 'revoked' };
      } else if (existing.tokenSha256 !== digest) {
        await repository.update({ id: existing.id }, { tokenSha256: digest });
      }
      return { kind: 'ready' };
    }
    if ((await repository.count()) > 0) return { kind: 'ready' };
    const token = generateToken();
    return (await this.#insertBootstrap(hashToken(token))) ? { kind: 'generated', token } : { kind: 'ready' };
  }

  /** Inserts the bootstrap token unless another process just did; true when this call inserted it. */
  async #insertBootstrap(digest: string): Promise<boolean> {
    const rows = await this.dataSource.query<unknown[]>(
      `INSERT INTO api_tokens (id, name, token_sha256, role) VALUES ($1, $2, $3, 'admin')
       ON CONFLICT (name) DO NOTHING RETURNING id`,
      [randomUUID(), BOOTSTRAP_TOKEN_NAME, digest],
    );
    if (rows.length > 0) {
      await this.dataSource.query(
        'INSERT INTO audit_log (actor, action, target, details) VALUES ($1, $2, $3, $4)',
        ['system:bootstrap', 'token.create', `token:${BOOTSTRAP_TOKEN_NAME}`, '{"role":"admin"}'],
      );
    }
    return rows.length > 0;
  }
}

function toTokenView(row: ApiTokenEntity): TokenView {
  return {
    name: row.name,
    role: row.role,
    createdAt: row.createdAt.toISOString(),
    revokedAt: row.revokedAt?.toISOString() ?? null,
  };
}
