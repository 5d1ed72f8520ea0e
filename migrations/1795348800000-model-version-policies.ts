import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Which READY versions of a model the workers load besides the routed ones (Triton's version
 * policy), one row per model name; a name without a row keeps its newest version loaded. The
 * policy is a JSON document the admin API validates: {"kind":"all"}, {"kind":"latest","count":N}
 * or {"kind":"specific","versions":[...]}.
 */
export class ModelVersionPolicies1795348800000 implements MigrationInterface {
  name = 'ModelVersionPolicies1795348800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE model_version_policies (
        model_name varchar(63) PRIMARY KEY,
        policy jsonb NOT NULL CHECK (policy ->> 'kind' IN ('all', 'latest', 'specific')),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS model_version_policies`);
  }
}
