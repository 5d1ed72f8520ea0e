import { ErrorCode, MODEL_TASKS, ModelgateError, isGenerativeTask } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { type ServableModel } from '../../endpoints/endpoint-table.js';
import { taskModule } from './task-table.js';

function codeOf(run: () => unknown): ErrorCode | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof ModelgateError ? error.code : undefined;
  }
  return undefined;
}

describe('taskModule', () => {
  it('serves every task answered by one model call, and only those', () => {
    for (const task of MODEL_TASKS) {
      if (isGenerativeTask(task)) {
        expect(
          codeOf(() => taskModule(task)),
          task,
        ).toBe(ErrorCode.INTERNAL);
      } else {
        expect(typeof taskModule(task).parse, task).toBe('function');
      }
    }
  });

  it('refuses a /serve body for a raw model, naming the v2 route of that model', () => {
    const model = { spec: { name: 'adder', task: 'raw' } } as unknown as ServableModel;
    const endpoint = { name: 'sums' } as Parameters<ReturnType<typeof taskModule>['parse']>[1];
    expect(() => taskModule('raw').parse({ text: 'x' }, endpoint, model)).toThrow(
      'endpoint sums takes tensors: use /v2/models/adder/infer',
    );
  });
});
