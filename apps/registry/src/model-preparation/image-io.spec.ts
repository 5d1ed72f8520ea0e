import { type TensorMetadata } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { checkImageBundle, checkImageClassificationIo, readImageProcessing } from './image-io.js';
import { checkIoForTask } from './io-requirements.js';

const pixels: TensorMetadata = { name: 'pixel_values', datatype: 'FP32', dims: [-1, 3, 224, 224] };
const logits: TensorMetadata = { name: 'logits', datatype: 'FP32', dims: [-1, 5] };

describe('checkImageClassificationIo', () => {
  it('accepts a ViT export: FP32 pixel_values [batch, 3, h, w] in, logits [batch, labels] out', () => {
    expect(checkImageClassificationIo([pixels], [logits])).toEqual([]);
    expect(checkIoForTask('image-classification', [pixels], [logits])).toEqual([]);
  });

  it('accepts symbolic channels and sizes, as Optimum exports them', () => {
    const dynamic: TensorMetadata = { ...pixels, dims: [-1, -1, -1, -1] };
    expect(checkImageClassificationIo([dynamic], [logits])).toEqual([]);
  });

  it('refuses a text model, naming the missing input and the extra ones', () => {
    const tokens: TensorMetadata[] = [
      { name: 'input_ids', datatype: 'INT64', dims: [-1, -1] },
      { name: 'attention_mask', datatype: 'INT64', dims: [-1, -1] },
    ];
    expect(checkIoForTask('image-classification', tokens, [logits])).toEqual([
      'task image-classification needs an input named pixel_values; the model has inputs ' +
        'input_ids (INT64 [-1, -1]), attention_mask (INT64 [-1, -1])',
      'task image-classification feeds only pixel_values; the model also needs input_ids (INT64 [-1, -1]), ' +
        'attention_mask (INT64 [-1, -1]) (register it as raw)',
    ]);
  });

  it('refuses pixel_values of the wrong rank or type, and a grayscale model', () => {
    expect(checkImageClassificationIo([{ ...pixels, dims: [-1, 3, 224] }], [logits])).toEqual([
      'task image-classification needs pixel_values to be FP32 [batch, channels, height, width]; ' +
        'the model declares pixel_values (FP32 [-1, 3, 224])',
    ]);
    expect(checkImageClassificationIo([{ ...pixels, datatype: 'FP16' }], [logits])).toHaveLength(1);
    expect(checkImageClassificationIo([{ ...pixels, dims: [-1, 1, 28, 28] }], [logits])).toEqual([
      "task image-classification feeds RGB images (3 channels); the model's pixel_values has 1 channels",
    ]);
  });

  it('refuses a model without 2-D logits, listing its outputs', () => {
    const hidden: TensorMetadata = { name: 'last_hidden_state', datatype: 'FP32', dims: [-1, 50, 64] };
    expect(checkImageClassificationIo([pixels], [hidden])).toEqual([
      'task image-classification needs an FP32 output named logits of shape [batch, labels]; ' +
        'the model has outputs last_hidden_state (FP32 [-1, 50, 64])',
    ]);
  });
});

describe('checkImageBundle', () => {
  it('accepts a preprocessor_config.json object', () => {
    expect(checkImageBundle({ image_processor_type: 'ViTImageProcessor' })).toEqual([]);
  });

  it.each([undefined, null, 'text', [1]])('refuses %j, saying which file the bundle lacks', (config) => {
    expect(checkImageBundle(config)).toEqual([
      expect.stringContaining('task image-classification needs preprocessor_config.json'),
    ]);
  });
});

describe('readImageProcessing', () => {
  const pixels = (dims: number[]) => [{ name: 'pixel_values', datatype: 'FP32' as const, dims }];
  const vit384 = { image_processor_type: 'ViTImageProcessor', size: { height: 384, width: 384 } };

  it("gives the size every image leaves the processor at, for an export's dynamic image dims", () => {
    expect(readImageProcessing('image-to-text', vit384, pixels([-1, -1, -1, -1]))).toEqual({
      problems: [],
      facts: { channels: 3, height: 384, width: 384 },
    });
  });

  it('gives no size when it follows the image', () => {
    const config = { image_processor_type: 'ViTImageProcessor', size: { shortest_edge: 224 } };
    expect(readImageProcessing('image-classification', config, pixels([-1, 3, -1, -1]))).toEqual({
      problems: [],
    });
  });

  it('refuses captioning with images of many sizes: sequences decode together on equally many encoder states', () => {
    const config = { image_processor_type: 'ViTImageProcessor', size: { shortest_edge: 224 } };
    expect(readImageProcessing('image-to-text', config, pixels([-1, 3, -1, -1])).problems).toEqual([
      expect.stringMatching(/^task image-to-text needs an image processor that gives every image one size/),
    ]);
    expect(readImageProcessing('image-to-text', config, pixels([-1, 3, 224, 224])).problems).toEqual([]);
  });

  it('refuses a size the graph cannot take', () => {
    expect(readImageProcessing('image-classification', vit384, pixels([-1, 3, 224, 224])).problems).toEqual([
      'preprocessor_config.json makes 3×384×384 images but pixel_values takes 3×224×224',
    ]);
  });

  it('refuses at preparation what the gateway would refuse at every request', () => {
    const { problems } = readImageProcessing(
      'image-classification',
      { ...vit384, do_pad: true },
      pixels([-1, 3, 384, 384]),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/^preprocessor_config\.json: .*do_pad/);
  });
});
