import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * Issue 17: text-generation (decoder models with a KV cache) joins the task CHECK of models and
 * endpoints. Reverting refuses while a model or endpoint has the task, rather than drop it.
 */
const TASKS_BEFORE = [
  'text-classification',
  'feature-extraction',
  'raw',
  'question-answering',
  'token-classification',
  'text-ranking',
];
const TASKS_AFTER = [...TASKS_BEFORE, 'text-generation'];

function taskCheck(table: string, tasks: readonly string[]): string {
  const list = tasks.map((task) => `'${task}'`).join(', ');
  return `ALTER TABLE ${table}
    DROP CONSTRAINT ${table}_task_check,
    ADD CONSTRAINT ${table}_task_check CHECK (task IN (${list}))`;
}

export class TextGenerationTask1795363200000 implements MigrationInterface {
  name = 'TextGenerationTask1795363200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(taskCheck('models', TASKS_AFTER));
    await queryRunner.query(taskCheck('endpoints', TASKS_AFTER));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const rows = (await queryRunner.query(
      `SELECT (SELECT count(*) FROM models WHERE task = 'text-generation')::int
            + (SELECT count(*) FROM endpoints WHERE task = 'text-generation')::int AS n`,
    )) as { n: number }[];
    const count = rows[0]?.n ?? 0;
    if (count > 0) {
      throw new Error(
        `cannot revert ${this.name}: ${count} model version(s) or endpoint(s) are of task text-generation; delete them first`,
      );
    }
    await queryRunner.query(taskCheck('endpoints', TASKS_BEFORE));
    await queryRunner.query(taskCheck('models', TASKS_BEFORE));
  }
}
