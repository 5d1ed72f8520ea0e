import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * What the rollout driver needs beside the plan the first schema stored: where a rollout is (phase,
 * step, window, when it is next judged), the candidate's counters at the window's start (so a
 * registry restart judges the same window), the routes abort and rollback put back, and a version
 * for optimistic locking between registry replicas. At most one rollout in progress per endpoint.
 * The models keep their ids as text (`from_model`, `to_model`) so a finished rollout's record
 * survives deleting an old version: the foreign keys now SET NULL instead of refusing the delete.
 */
export class RolloutProgress1795356000000 implements MigrationInterface {
  name = 'RolloutProgress1795356000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE rollouts
        ADD COLUMN from_model varchar(80) NULL,
        ADD COLUMN to_model varchar(80) NOT NULL DEFAULT '',
        ADD COLUMN phase varchar(16) NOT NULL DEFAULT 'warmup'
          CHECK (phase IN ('warmup', 'shadow', 'live', 'done')),
        ADD COLUMN step_index integer NOT NULL DEFAULT -1,
        ADD COLUMN shadow_first_seconds integer NULL CHECK (shadow_first_seconds > 0),
        ADD COLUMN shadow_percent smallint NOT NULL DEFAULT 100 CHECK (shadow_percent BETWEEN 1 AND 100),
        ADD COLUMN previous_routes jsonb NOT NULL DEFAULT '[]',
        ADD COLUMN window_started_at timestamptz NULL,
        ADD COLUMN next_check_at timestamptz NULL,
        ADD COLUMN window_baseline jsonb NULL,
        ADD COLUMN candidate_ready_at timestamptz NULL,
        ADD COLUMN version integer NOT NULL DEFAULT 0`);
    await queryRunner.query(`ALTER TABLE rollouts ALTER COLUMN to_model DROP DEFAULT`);
    await queryRunner.query(`
      ALTER TABLE rollouts
        ALTER COLUMN to_model_id DROP NOT NULL,
        DROP CONSTRAINT rollouts_from_model_id_fkey,
        DROP CONSTRAINT rollouts_to_model_id_fkey,
        ADD CONSTRAINT rollouts_from_model_id_fkey
          FOREIGN KEY (from_model_id) REFERENCES models (id) ON DELETE SET NULL,
        ADD CONSTRAINT rollouts_to_model_id_fkey
          FOREIGN KEY (to_model_id) REFERENCES models (id) ON DELETE SET NULL`);
    await queryRunner.query(`
      CREATE UNIQUE INDEX rollouts_one_active_per_endpoint ON rollouts (endpoint_id)
        WHERE state IN ('PENDING', 'RUNNING', 'PAUSED')`);
    await queryRunner.query(`
      CREATE INDEX rollouts_due_idx ON rollouts (next_check_at)
        WHERE state IN ('PENDING', 'RUNNING')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const orphans = (await queryRunner.query(
      `SELECT count(*)::int AS n FROM rollouts WHERE to_model_id IS NULL`,
    )) as { n: number }[];
    if ((orphans[0]?.n ?? 0) > 0) {
      throw new Error(
        `${orphans[0]?.n} rollout(s) name a candidate model that was deleted since; ` +
          'delete those rollouts before reverting RolloutProgress1795356000000',
      );
    }
    await queryRunner.query(`DROP INDEX IF EXISTS rollouts_due_idx`);
    await queryRunner.query(`DROP INDEX IF EXISTS rollouts_one_active_per_endpoint`);
    await queryRunner.query(`
      ALTER TABLE rollouts
        DROP CONSTRAINT rollouts_from_model_id_fkey,
        DROP CONSTRAINT rollouts_to_model_id_fkey,
        ADD CONSTRAINT rollouts_from_model_id_fkey
          FOREIGN KEY (from_model_id) REFERENCES models (id) ON DELETE RESTRICT,
        ADD CONSTRAINT rollouts_to_model_id_fkey
          FOREIGN KEY (to_model_id) REFERENCES models (id) ON DELETE RESTRICT,
        ALTER COLUMN to_model_id SET NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE rollouts
        DROP COLUMN from_model,
        DROP COLUMN to_model,
        DROP COLUMN phase,
        DROP COLUMN step_index,
        DROP COLUMN shadow_first_seconds,
        DROP COLUMN shadow_percent,
        DROP COLUMN previous_routes,
        DROP COLUMN window_started_at,
        DROP COLUMN next_check_at,
        DROP COLUMN window_baseline,
        DROP COLUMN candidate_ready_at,
        DROP COLUMN version`);
  }
}
