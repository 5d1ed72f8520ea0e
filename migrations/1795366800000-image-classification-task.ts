import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Issue 18: image-classification (pixel_values in, logits out) joins the task CHECK of models and
 * endpoints. Reverting refuses while a model or endpoint has the task, rather than drop it.
 */
const TASKS_BEFORE = [
  'text-classification',
  'feature-extraction',
  'raw',
  'question-answering',
  'token-classification',
  'text-ranking',
  'text-generation',
];
const TASKS_AFTER = [...TASKS_BEFORE, 'image-classification'];

function taskCheck(table: string, tasks: readonly string[]): string {
  const list = tasks.map((task) => `'${task}'`).join(', ');
  return `ALTER TABLE ${table}
    DROP CONSTRAINT ${table}_task_check,
    ADD CONSTRAINT ${table}_task_check CHECK (task IN (${list}))`;
}

export class ImageClassificationTask1795366800000 implements MigrationInterface {
  name = 'ImageClassificationTask1795366800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(taskCheck('models', TASKS_AFTER));
    await queryRunner.query(taskCheck('endpoints', TASKS_AFTER));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const rows = (await queryRunner.query(
      `SELECT (SELECT count(*) FROM models WHERE task = 'image-classification')::int
            + (SELECT count(*) FROM endpoints WHERE task = 'image-classification')::int AS n`,
    )) as { n: number }[];
    const count = rows[0]?.n ?? 0;
    if (count > 0) {
      throw new Error(
        `cannot revert ${this.name}: ${count} model version(s) or endpoint(s) are of task image-classification; delete them first`,
      );
    }
    await queryRunner.query(taskCheck('endpoints', TASKS_BEFORE));
    await queryRunner.query(taskCheck('models', TASKS_BEFORE));
  }
}
