// image-classification on /serve: the body (JSON with a base64 or data-URL `image`, or the raw
// image) is checked against the endpoint's image limits, then decoded and preprocessed by the model's
// preprocessor_config.json into FP32 pixel_values [1, 3, H, W]: one row, which the worker's batcher
// stacks with other requests' rows. Its logits read as a text classifier's.
import { PIXEL_VALUES } from '@modelgate/contracts';
import { parseImageClassificationRequest } from '@modelgate/processing';
import { imageLimitsOf, imageSourceOf, preprocessImage } from '../image-input.js';
import { type TaskModule } from './task-module.js';
import { classifyLogits } from './text-classification.js';

export const imageClassification: TaskModule = {
  parse(body, endpoint) {
    const request = parseImageClassificationRequest(imageSourceOf(body), imageLimitsOf(endpoint));
    return {
      // The image is decoded when the rows are built (an asynchronous job: when it runs).
      check: () => undefined,
      rows: async (model, tools) => {
        const pixels = await preprocessImage(model, endpoint, request.image, tools.imageDecodes);
        return {
          inputs: [{ name: PIXEL_VALUES, datatype: 'FP32', dims: [1, ...pixels.dims], data: pixels.data }],
          promptTokens: 0,
          answer: (outputs) => classifyLogits(model, endpoint, outputs, request.topK),
        };
      },
    };
  },
};
