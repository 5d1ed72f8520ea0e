import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Models imported from the Hugging Face Hub and models with ONNX external data.
 * - `source_uri`: the hf://org/name@revision a model's files are imported from. Preparation
 *   copies them into the registry's artifact store and only then fills in artifact_uri and
 *   artifact_sha256, so those may be NULL until the import is done (never once READY).
 * - `external_data`: [{name, uri, sha256}], the files the graph keeps its weights in, placed
 *   beside the .onnx file under `name` before onnxruntime opens it.
 */
export class ModelSourcesAndExternalData1795352400000 implements MigrationInterface {
  name = 'ModelSourcesAndExternalData1795352400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE models ADD COLUMN source_uri text NULL`);
    await queryRunner.query(`ALTER TABLE models ADD COLUMN external_data jsonb NOT NULL DEFAULT '[]'`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN artifact_uri DROP NOT NULL`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN artifact_sha256 DROP NOT NULL`);
    await queryRunner.query(`
      ALTER TABLE models
        ADD CONSTRAINT models_artifact_pair CHECK ((artifact_uri IS NULL) = (artifact_sha256 IS NULL)),
        ADD CONSTRAINT models_artifact_or_source CHECK (artifact_uri IS NOT NULL OR source_uri IS NOT NULL),
        ADD CONSTRAINT models_ready_has_artifact CHECK (status <> 'READY' OR artifact_uri IS NOT NULL),
        ADD CONSTRAINT models_external_data_array CHECK (jsonb_typeof(external_data) = 'array')`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The older schema can hold neither a model without its files nor external data: refuse
    // rather than drop what a model needs to load.
    const rows = (await queryRunner.query(
      `SELECT count(*)::int AS n FROM models WHERE artifact_uri IS NULL OR external_data <> '[]'::jsonb`,
    )) as { n: number }[];
    const count = rows[0]?.n ?? 0;
    if (count > 0) {
      throw new Error(
        `cannot revert ${this.name}: ${count} model version(s) are not yet imported or have external data; delete them first`,
      );
    }
    await queryRunner.query(`
      ALTER TABLE models
        DROP CONSTRAINT models_artifact_pair,
        DROP CONSTRAINT models_artifact_or_source,
        DROP CONSTRAINT models_ready_has_artifact,
        DROP CONSTRAINT models_external_data_array`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN artifact_uri SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE models ALTER COLUMN artifact_sha256 SET NOT NULL`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN external_data`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN source_uri`);
  }
}
