import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * A text-generation endpoint's own decoding defaults (issue 41): Hugging Face's generation field
 * names, applied under each request's values and over the model's generation_config.json. Every
 * existing endpoint gets none (`{}`), which changes nothing it answers.
 */
export class EndpointGenerationDefaults1795384800000 implements MigrationInterface {
  name = 'EndpointGenerationDefaults1795384800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE endpoints ADD COLUMN generation jsonb NOT NULL DEFAULT '{}'::jsonb`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE endpoints DROP COLUMN generation`);
  }
}
