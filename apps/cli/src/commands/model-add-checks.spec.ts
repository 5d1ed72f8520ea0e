import { describe, expect, it } from 'vitest';
import { checkUploadSettings, refuseInertBatchingOptions } from './model-add-checks.js';

describe('refuseInertBatchingOptions', () => {
  it('refuses batching options a generation model has no use for, even at their default values', () => {
    expect(() => refuseInertBatchingOptions({ task: 'text-generation', maxQueueDelayUs: 2000 })).toThrow(
      '--max-queue-delay-us has no meaning for a text-generation model',
    );
    expect(() =>
      refuseInertBatchingOptions({ task: 'image-to-text', maxPaddingRatio: 1.15, preferredBatchSizes: [4] }),
    ).toThrow('--preferred-batch-sizes, --max-padding-ratio have no meaning for a image-to-text model');
    expect(() => refuseInertBatchingOptions({ task: 'text-generation' })).not.toThrow();
  });

  it('refuses a padding ratio on images, and a queue delay without preferred sizes and two instances', () => {
    expect(() => refuseInertBatchingOptions({ task: 'image-classification', maxPaddingRatio: 1.15 })).toThrow(
      'nothing is padded',
    );
    expect(() => refuseInertBatchingOptions({ task: 'text-classification', maxQueueDelayUs: 2000 })).toThrow(
      'so it needs --preferred-batch-sizes and --instances 2 or more',
    );
    expect(() =>
      refuseInertBatchingOptions({
        task: 'text-classification',
        maxQueueDelayUs: 500,
        preferredBatchSizes: [4],
      }),
    ).toThrow('so it needs --instances 2 or more;');
    // 0 asks for no wait, and the full set makes the delay apply.
    expect(() => refuseInertBatchingOptions({ task: 'raw', maxQueueDelayUs: 0 })).not.toThrow();
    expect(() =>
      refuseInertBatchingOptions({
        task: 'text-classification',
        maxQueueDelayUs: 500,
        preferredBatchSizes: [4],
        instances: 2,
      }),
    ).not.toThrow();
  });
});

describe('checkUploadSettings', () => {
  it('names what the registry would refuse, before any byte is uploaded', () => {
    expect(() => checkUploadSettings({ name: 'x', task: 'raw', version: '1000000000' })).toThrow(
      /^the registry would refuse these settings: version: /,
    );
    expect(() =>
      checkUploadSettings({
        name: 'x',
        task: 'raw',
        batching: { maxBatchSize: 2, preferredBatchSizes: [4] },
      }),
    ).toThrow('batching.preferredBatchSizes');
    expect(() =>
      checkUploadSettings({ name: 'x', task: 'raw', batching: { maxBatchSize: 4 } }),
    ).not.toThrow();
  });
});
