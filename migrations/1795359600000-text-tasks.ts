import { type MigrationInterface, type QueryRunner } from 'typeorm';

/*
 * The text tasks of the second wave (issue 14): question-answering, token-classification and
 * text-ranking join the task CHECK of models and endpoints. One migration for all three, so the
 * constraint is rewritten once; a later task widens it again in its own migration.
 */
const TASKS_BEFORE = ['text-classification', 'feature-extraction', 'raw'];
const TASKS_AFTER = [...TASKS_BEFORE, 'question-answering', 'token-classification', 'text-ranking'];

function taskCheck(table: string, tasks: readonly string[]): string {
  const list = tasks.map((task) => `'${task}'`).join(', ');
  return `ALTER TABLE ${table}
    DROP CONSTRAINT ${table}_task_check,
    ADD CONSTRAINT ${table}_task_check CHECK (task IN (${list}))`;
}

export class TextTasks1795359600000 implements MigrationInterface {
  name = 'TextTasks1795359600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(taskCheck('models', TASKS_AFTER));
    await queryRunner.query(taskCheck('endpoints', TASKS_AFTER));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The older schema cannot hold models or endpoints of these tasks: refuse rather than drop them.
    const added = TASKS_AFTER.filter((task) => !TASKS_BEFORE.includes(task));
    const rows = (await queryRunner.query(
      `SELECT (SELECT count(*) FROM models WHERE task = ANY($1))::int
            + (SELECT count(*) FROM endpoints WHERE task = ANY($1))::int AS n`,
      [added],
    )) as { n: number }[];
    const count = rows[0]?.n ?? 0;
    if (count > 0) {
      throw new Error(
        `cannot revert ${this.name}: ${count} model version(s) or endpoint(s) are of task ${added.join(', ')}; delete them first`,
      );
    }
    await queryRunner.query(taskCheck('endpoints', TASKS_BEFORE));
    await queryRunner.query(taskCheck('models', TASKS_BEFORE));
  }
}
