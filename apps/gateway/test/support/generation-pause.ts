// Direct generations on a worker that hold its decode loop, through the worker's generation-pause
// test hook (WORKER_TEST_HOOKS, on in test workers): what lets a test freeze a gateway stream
// mid-generation without racing the model's speed.
import { type RunningWorker } from '@modelgate/testing';

/** The hook's metadata key: `<afterTokens>:<untilWaiting>`. */
const PAUSE = 'x-modelgate-test-generation-pause';

/** What an occupying call generates and when its loop holds. */
export interface OccupyOptions {
  model?: string;
  version?: string;
  /** `<afterTokens>:<untilWaiting>`: once the call has afterTokens tokens, the loop holds until untilWaiting sequences wait. */
  pause?: string;
  maxNewTokens?: number;
  /** The call's deadline; the model's defaultTimeoutMs when absent. */
  deadlineMs?: number;
}

/** A held call: resolves `firstToken` once it generated one; `release` cancels it. */
export interface OccupiedSlot {
  firstToken: Promise<unknown>;
  release(): void;
}

/**
 * A direct ModelGenerate call to `worker` whose loop pauses once it has `afterTokens` tokens, until
 * `untilWaiting` sequences wait to join, it is cancelled (`release`) or its deadline passes.
 */
export function occupySlot(worker: RunningWorker, options: OccupyOptions = {}): OccupiedSlot {
  const { model = 'gpt', version = '1', pause = '1:99', maxNewTokens = 50, deadlineMs } = options;
  const stream = worker.client.stream(
    'ModelGenerate',
    { model_name: model, model_version: version, input_ids: [15496], max_new_tokens: maxNewTokens },
    { metadata: { [PAUSE]: pause }, ...(deadlineMs === undefined ? {} : { deadlineMs }) },
  );
  stream.on('error', () => undefined); // it ends cancelled, or with its worker
  const firstToken = new Promise((resolve) => stream.once('data', resolve));
  return { firstToken, release: () => stream.cancel() };
}
