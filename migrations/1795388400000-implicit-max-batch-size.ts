import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * batching.maxBatchSize is now stored only when it was given: left out, a worker takes as many
 * rows as the graph allows (a fixed batch's size, 1 for a decoder without position_ids, else 32),
 * and given, exactly that or a refusal. Rows registered before stored 32 whether or not anyone
 * asked for it, and 32 then meant "as many as the graph takes"; those rows lose the key, so they
 * keep batching as they did instead of being refused for a value nobody chose. Reverting puts 32
 * back where the key is missing, as the old schema filled it in.
 */
export class ImplicitMaxBatchSize1795388400000 implements MigrationInterface {
  name = 'ImplicitMaxBatchSize1795388400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE models
         SET batching = batching - 'maxBatchSize'
       WHERE jsonb_typeof(batching->'maxBatchSize') = 'number'
         AND (batching->>'maxBatchSize')::numeric = 32`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE models
         SET batching = batching || '{"maxBatchSize": 32}'::jsonb
       WHERE NOT (batching ? 'maxBatchSize')`);
  }
}
