import { describe, expect, it } from 'vitest';
import { SERVE_TASKS, SERVE_TASK_SCHEMAS } from './serve-task-schemas.js';

describe('SERVE_TASK_SCHEMAS', () => {
  it.each(SERVE_TASKS)('%s: its example body passes its request schema', (task) => {
    const schemas = SERVE_TASK_SCHEMAS[task];
    expect(schemas.request.safeParse(schemas.example.request).error).toBeUndefined();
  });

  it.each(SERVE_TASKS)('%s: each of its example predictions passes its prediction schema', (task) => {
    const schemas = SERVE_TASK_SCHEMAS[task];
    expect(schemas.example.predictions.length).toBeGreaterThan(0);
    for (const prediction of schemas.example.predictions) {
      expect(schemas.prediction.safeParse(prediction).error).toBeUndefined();
    }
  });

  it('keeps feature-extraction bodies to the fields that task reads', () => {
    const request = SERVE_TASK_SCHEMAS['feature-extraction'].request;
    expect(request.safeParse({ text: 'a', parameters: { truncation: true } }).success).toBe(true);
    expect(request.safeParse({ text: 'a', text_pair: 'b' }).success).toBe(false);
    expect(request.safeParse({ text: 'a', parameters: { top_k: 2 } }).success).toBe(false);
  });
});
