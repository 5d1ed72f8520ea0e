import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * An encoder model's batching.maxQueueDelayMicros makes a batch wait only to reach a preferred
 * batch size while another batch runs, so without preferredBatchSizes, or with one instance, a
 * value other than 0 or the default (2000) was stored and never applied. Registration has refused
 * it since ff86ad9, and the schema the nodes parse snapshots with now refuses it too, so rows
 * holding one lose it and get the default, which acts the same way (no batch waits).
 * Generation models keep their own rule (the task's). Reverting restores nothing: the old values
 * did what the default does.
 */
export class InertQueueDelays1795381200000 implements MigrationInterface {
  name = 'InertQueueDelays1795381200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      UPDATE models
         SET batching = batching - 'maxQueueDelayMicros'
       WHERE task NOT IN ('text-generation', 'image-to-text')
         AND jsonb_typeof(batching->'maxQueueDelayMicros') = 'number'
         AND (batching->>'maxQueueDelayMicros')::numeric NOT IN (0, 2000)
         AND (jsonb_typeof(batching->'preferredBatchSizes') IS DISTINCT FROM 'array'
              OR jsonb_array_length(batching->'preferredBatchSizes') = 0
              OR jsonb_typeof(runtime->'instances') IS DISTINCT FROM 'number'
              OR (runtime->>'instances')::numeric < 2)`);
  }

  async down(): Promise<void> {
    // Nothing to restore (see above).
  }
}
