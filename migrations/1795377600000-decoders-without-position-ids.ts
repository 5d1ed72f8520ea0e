import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * A text-generation or image-to-text decoder without position_ids decodes one sequence at a time,
 * so a batching.maxBatchSize other than 1 or the default (32) was stored and never applied; it is
 * now refused, by preparation and by the worker that loads the model. Prepared rows holding one
 * (their io lists the decoder's inputs) get 1, which acts the same way. Rows not yet prepared are
 * left as they are: their preparation says what to change.
 * Reverting restores nothing: the old values did what the new one does.
 */
export class DecodersWithoutPositionIds1795377600000 implements MigrationInterface {
  name = 'DecodersWithoutPositionIds1795377600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE models
         SET batching = batching || '{"maxBatchSize": 1}'::jsonb
       WHERE task IN ('text-generation', 'image-to-text')
         AND jsonb_typeof(io->'inputs') = 'array'
         AND NOT EXISTS (
               SELECT 1 FROM jsonb_array_elements(io->'inputs') AS input
                WHERE input->>'name' = 'position_ids')
         AND jsonb_typeof(batching->'maxBatchSize') = 'number'
         AND (batching->>'maxBatchSize')::numeric NOT IN (1, 32)`);
  }

  async down(): Promise<void> {
    // Nothing to restore (see above).
  }
}
