import { type ModelUploadSettings } from '@modelgate/admin-client';
import { type ModelTask, isGenerativeTask, uploadFieldsSchema } from '@modelgate/contracts';
import { UsageError } from '../cli-errors.js';

/** The `model add` batching options whose meaning depends on the task and on each other. */
export interface BatchingOptions {
  task: ModelTask;
  maxQueueDelayUs?: number;
  preferredBatchSizes?: number[];
  maxPaddingRatio?: number;
  instances?: number;
}

/**
 * Refuses a batching option given where it does nothing. The registry cannot tell a value typed
 * equal to its default from one left out (a stored spec carries every default), so
 * `--max-queue-delay-us 2000` on a text-generation model would pass there and do nothing; here the
 * CLI knows what was typed.
 */
export function refuseInertBatchingOptions(options: BatchingOptions): void {
  const { task } = options;
  if (isGenerativeTask(task)) {
    const given = [
      ...(options.maxQueueDelayUs === undefined ? [] : ['--max-queue-delay-us']),
      ...(options.preferredBatchSizes === undefined ? [] : ['--preferred-batch-sizes']),
      ...(options.maxPaddingRatio === undefined ? [] : ['--max-padding-ratio']),
    ];
    if (given.length > 0) {
      throw new UsageError(
        `${given.join(', ')} ${given.length === 1 ? 'has' : 'have'} no meaning for a ${task} model ` +
          '(a waiting sequence joins the running batch at the next decode step); leave ' +
          `${given.length === 1 ? 'it' : 'them'} out`,
      );
    }
    return;
  }
  if (task === 'image-classification' && options.maxPaddingRatio !== undefined) {
    throw new UsageError(
      '--max-padding-ratio has no meaning for an image-classification model (every image is one row of the same size, nothing is padded); leave it out',
    );
  }
  if (options.maxQueueDelayUs !== undefined && options.maxQueueDelayUs > 0) {
    const missing = [
      ...(options.preferredBatchSizes === undefined ? ['--preferred-batch-sizes'] : []),
      ...((options.instances ?? 1) < 2 ? ['--instances 2 or more'] : []),
    ];
    if (missing.length > 0) {
      throw new UsageError(
        `--max-queue-delay-us makes a batch wait only to reach a preferred batch size while another batch runs, ` +
          `so it needs ${missing.join(' and ')}; give them, or leave it out`,
      );
    }
  }
}

/**
 * Checks an upload's settings as the registry will, before any file is sent: a refused version or
 * batching limit should not cost the transfer of a multi-gigabyte export first.
 */
export function checkUploadSettings(settings: ModelUploadSettings): void {
  const checked = uploadFieldsSchema.safeParse(settings);
  if (checked.success) return;
  const problems = checked.error.issues.map((issue) =>
    issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message,
  );
  throw new UsageError(`the registry would refuse these settings: ${problems.join('; ')}`);
}
