import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Issue 18: image-to-text (a vision encoder + a text decoder with past) joins the task CHECK of
 * models and endpoints, and models gain the encoder graph beside their artifact (the decoder):
 * - `encoder_uri`, `encoder_sha256`: encoder_model.onnx, both or neither; NULL for every other
 *   task, and for an image-to-text model registered from hf:// until its import fills them in
 *   (never once READY).
 * Image endpoints now refuse the text options they never applied (maxTokens, maxInputChars,
 * truncation, maxBatchItems): existing image-classification endpoints get them back at their
 * defaults, which changes nothing they do and keeps every stored endpoint valid for the snapshot.
 * Reverting refuses while a model or endpoint has the task, rather than drop it.
 */
const TASKS_BEFORE = [
  'text-classification',
  'feature-extraction',
  'raw',
  'question-answering',
  'token-classification',
  'text-ranking',
  'text-generation',
  'image-classification',
];
const TASKS_AFTER = [...TASKS_BEFORE, 'image-to-text'];

function taskCheck(table: string, tasks: readonly string[]): string {
  const list = tasks.map((task) => `'${task}'`).join(', ');
  return `ALTER TABLE ${table}
    DROP CONSTRAINT ${table}_task_check,
    ADD CONSTRAINT ${table}_task_check CHECK (task IN (${list}))`;
}

export class ImageToTextTask1795370400000 implements MigrationInterface {
  name = 'ImageToTextTask1795370400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(taskCheck('models', TASKS_AFTER));
    await queryRunner.query(taskCheck('endpoints', TASKS_AFTER));
    await queryRunner.query(`ALTER TABLE models ADD COLUMN encoder_uri text NULL`);
    await queryRunner.query(`ALTER TABLE models ADD COLUMN encoder_sha256 char(64) NULL`);
    await queryRunner.query(`
      ALTER TABLE models
        ADD CONSTRAINT models_encoder_pair CHECK ((encoder_uri IS NULL) = (encoder_sha256 IS NULL)),
        ADD CONSTRAINT models_encoder_task CHECK (encoder_uri IS NULL OR task = 'image-to-text'),
        ADD CONSTRAINT models_ready_has_encoder
          CHECK (status <> 'READY' OR task <> 'image-to-text' OR encoder_uri IS NOT NULL)`);
    await queryRunner.query(`
      UPDATE endpoints
         SET preprocessing = (preprocessing - 'maxTokens')
                             || '{"maxInputChars": 20000, "truncation": true, "maxBatchItems": 64}'::jsonb
       WHERE task = 'image-classification'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const rows = (await queryRunner.query(
      `SELECT (SELECT count(*) FROM models WHERE task = 'image-to-text')::int
            + (SELECT count(*) FROM endpoints WHERE task = 'image-to-text')::int AS n`,
    )) as { n: number }[];
    const count = rows[0]?.n ?? 0;
    if (count > 0) {
      throw new Error(
        `cannot revert ${this.name}: ${count} model version(s) or endpoint(s) are of task image-to-text; delete them first`,
      );
    }
    await queryRunner.query(`
      ALTER TABLE models
        DROP CONSTRAINT models_encoder_pair,
        DROP CONSTRAINT models_encoder_task,
        DROP CONSTRAINT models_ready_has_encoder`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN encoder_sha256`);
    await queryRunner.query(`ALTER TABLE models DROP COLUMN encoder_uri`);
    await queryRunner.query(taskCheck('endpoints', TASKS_BEFORE));
    await queryRunner.query(taskCheck('models', TASKS_BEFORE));
  }
}
