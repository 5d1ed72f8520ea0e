import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * The registry's tables (DESIGN §3.5). Plain SQL that Postgres 15 and 18 (PGlite) both run:
 * no extensions (gen_random_uuid() is built in since 13), CHECK constraints instead of enum
 * types, timestamptz everywhere. Names are unqualified: the migration runner sets search_path
 * to the configured schema.
 */
export class InitialSchema1763683200000 implements MigrationInterface {
  name = 'InitialSchema1763683200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE models (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(63) NOT NULL,
        version integer NOT NULL CHECK (version > 0),
        task varchar(32) NOT NULL CHECK (task IN ('text-classification', 'feature-extraction', 'raw')),
        artifact_uri text NOT NULL,
        artifact_sha256 char(64) NOT NULL,
        tokenizer_uri text NULL,
        tokenizer_sha256 char(64) NULL,
        io jsonb NULL,
        labels jsonb NULL,
        batching jsonb NOT NULL DEFAULT '{}',
        runtime jsonb NOT NULL DEFAULT '{}',
        worker_group varchar(63) NOT NULL DEFAULT 'default',
        status varchar(16) NOT NULL DEFAULT 'PENDING'
          CHECK (status IN ('PENDING', 'PREPARING', 'READY', 'FAILED')),
        status_reason text NULL,
        prepared_at timestamptz NULL,
        timings jsonb NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT models_name_version_key UNIQUE (name, version),
        CONSTRAINT models_tokenizer_pair CHECK ((tokenizer_uri IS NULL) = (tokenizer_sha256 IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX models_status_idx ON models (status)`);

    await queryRunner.query(`
      CREATE TABLE endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(63) NOT NULL CONSTRAINT endpoints_name_key UNIQUE,
        task varchar(32) NOT NULL CHECK (task IN ('text-classification', 'feature-extraction', 'raw')),
        preprocessing jsonb NOT NULL DEFAULT '{}',
        postprocessing jsonb NOT NULL DEFAULT '{}',
        sticky_header varchar(128) NULL,
        timeout_ms integer NULL CHECK (timeout_ms > 0),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);

    // RESTRICT on model_id: a model that carries traffic cannot be deleted.
    await queryRunner.query(`
      CREATE TABLE endpoint_routes (
        endpoint_id uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
        model_id uuid NOT NULL REFERENCES models (id) ON DELETE RESTRICT,
        weight smallint NOT NULL CHECK (weight BETWEEN 0 AND 100),
        role varchar(16) NOT NULL CHECK (role IN ('primary', 'canary', 'shadow')),
        position smallint NOT NULL DEFAULT 0,
        PRIMARY KEY (endpoint_id, model_id)
      )`);
    await queryRunner.query(`CREATE INDEX endpoint_routes_model_id_idx ON endpoint_routes (model_id)`);

    await queryRunner.query(`
      CREATE TABLE rollouts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL REFERENCES endpoints (id) ON DELETE CASCADE,
        from_model_id uuid NULL REFERENCES models (id) ON DELETE RESTRICT,
        to_model_id uuid NOT NULL REFERENCES models (id) ON DELETE RESTRICT,
        steps jsonb NOT NULL DEFAULT '[]',
        interval_seconds integer NOT NULL CHECK (interval_seconds > 0),
        thresholds jsonb NOT NULL DEFAULT '{}',
        state varchar(16) NOT NULL
          CHECK (state IN ('PENDING', 'RUNNING', 'PAUSED', 'COMPLETED', 'ROLLED_BACK', 'ABORTED')),
        history jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX rollouts_endpoint_id_idx ON rollouts (endpoint_id)`);

    // The outbox: one row per config change, committed with the change (DESIGN §3.4).
    await queryRunner.query(`
      CREATE TABLE config_events (
        revision bigserial PRIMARY KEY,
        actor varchar(128) NOT NULL,
        summary text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        published_at timestamptz NULL
      )`);
    await queryRunner.query(
      `CREATE INDEX config_events_unpublished_idx ON config_events (revision) WHERE published_at IS NULL`,
    );

    await queryRunner.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(63) NOT NULL CONSTRAINT api_tokens_name_key UNIQUE,
        token_sha256 char(64) NOT NULL CONSTRAINT api_tokens_token_sha256_key UNIQUE,
        role varchar(16) NOT NULL CHECK (role IN ('admin', 'viewer')),
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz NULL
      )`);

    await queryRunner.query(`
      CREATE TABLE audit_log (
        id bigserial PRIMARY KEY,
        at timestamptz NOT NULL DEFAULT now(),
        actor varchar(128) NOT NULL,
        action varchar(64) NOT NULL,
        target text NOT NULL,
        details jsonb NOT NULL DEFAULT '{}'
      )`);
    await queryRunner.query(`CREATE INDEX audit_log_at_idx ON audit_log (at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'audit_log',
      'api_tokens',
      'config_events',
      'rollouts',
      'endpoint_routes',
      'endpoints',
      'models',
    ]) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
