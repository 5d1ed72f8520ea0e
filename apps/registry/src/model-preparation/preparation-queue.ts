/** Where model-preparation jobs go: BullMQ with Redis, an in-process runner without. */
export interface PreparationQueue {
  /** Queues preparation of model `modelId` (idempotent: one job per model id). */
  enqueue(modelId: string): Promise<void>;
}

/** Injection token of the PreparationQueue. */
export const PREPARATION_QUEUE = Symbol('PREPARATION_QUEUE');

/** BullMQ queue name (DESIGN §3.6). */
export const MODEL_PREPARATION_QUEUE = 'model-preparation';
