import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Endpoint and model settings that were stored and never applied are now refused by the schemas
 * the nodes parse snapshots with, so stored rows holding them would keep every node on its last
 * config. They get the value that acts the same way:
 * - question-answering endpoints: truncation true (contexts are windowed, nothing is cut) and a
 *   maxTokens over 384 lowered to 384 (windows never exceed it);
 * - text-generation endpoints without maxTokens: truncation true (a prompt is cut only to
 *   maxTokens; past the model's positions it is refused either way);
 * - image-classification models: batching.maxPaddingRatio 1.15, its default (images are never
 *   padded).
 * Reverting restores nothing: the old values did what the new ones do.
 */
export class OptionsThatNeverApplied1795374000000 implements MigrationInterface {
  name = 'OptionsThatNeverApplied1795374000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE endpoints
         SET preprocessing = preprocessing || '{"truncation": true}'::jsonb
       WHERE preprocessing->'truncation' = 'false'::jsonb
         AND (task = 'question-answering'
              OR (task = 'text-generation' AND jsonb_typeof(preprocessing->'maxTokens') IS DISTINCT FROM 'number'))`);
    await queryRunner.query(`
      UPDATE endpoints
         SET preprocessing = preprocessing || '{"maxTokens": 384}'::jsonb
       WHERE task = 'question-answering'
         AND jsonb_typeof(preprocessing->'maxTokens') = 'number'
         AND (preprocessing->>'maxTokens')::numeric > 384`);
    await queryRunner.query(`
      UPDATE models
         SET batching = batching || '{"maxPaddingRatio": 1.15}'::jsonb
       WHERE task = 'image-classification'
         AND jsonb_typeof(batching->'maxPaddingRatio') = 'number'
         AND (batching->>'maxPaddingRatio')::numeric <> 1.15`);
  }

  async down(): Promise<void> {
    // Nothing to restore (see above).
  }
}
