// An image model's preprocessor_config.json, read into the steps the gateway runs. The meaning of
// every field, and every default, is @huggingface/transformers' base ImageProcessor (the parity
// reference); a field that would change pixels in a way this pipeline does not reproduce is an
// error at load, never ignored.
import { type ValidationIssue, validationError } from '@modelgate/contracts';
import { z } from 'zod';
import { requestIssues } from '../preprocessing/request-issues.js';

/** Resampling filters, by their PIL code in `resample`: 0 nearest, 1 lanczos, 2 bilinear, 3 bicubic. */
export type Resample = 'nearest' | 'lanczos' | 'bilinear' | 'bicubic';
const RESAMPLE_BY_PIL_CODE: readonly Resample[] = ['nearest', 'lanczos', 'bilinear', 'bicubic'];

/** Where a resize goes: an exact size, or edges that keep the aspect ratio. */
export type ResizeTarget =
  | { kind: 'exact'; width: number; height: number }
  | { kind: 'edges'; shortestEdge?: number; longestEdge?: number };

/** What a preprocessor_config.json asks for, in the order the steps run. */
export interface ImagePreprocessing {
  /** `image_processor_type` (or legacy `feature_extractor_type`) without a `Fast` suffix. */
  processorType?: string;
  /** Gray and RGBA inputs become RGB; when false, only RGB inputs are accepted (415 otherwise). */
  convertRgb: boolean;
  resize?: { target: ResizeTarget; resample: Resample };
  centerCrop?: { width: number; height: number };
  /** Multiplies every sample (usually 1/255). */
  rescaleFactor?: number;
  normalize?: { mean: [number, number, number]; std: [number, number, number] };
  /** Output BGR instead of RGB (`do_flip_channel_order`). */
  flipChannelOrder: boolean;
}

// Processor classes that transformers.js runs as its base ImageProcessor (no override of any
// step), plus BLIP's, which it does not know and so also runs as the base class.
const BASE_PROCESSOR_TYPES = new Set(
  [
    'ViT',
    'DeiT',
    'Beit',
    'CLIP',
    'ChineseCLIP',
    'Siglip',
    'Blip',
    'Bit',
    'Pvt',
    'DINOv3ViT',
    'MobileNetV1',
    'MobileNetV2',
    'MobileNetV3',
    'MobileNetV4',
    'MobileViT',
  ].flatMap((name) => [`${name}ImageProcessor`, `${name}FeatureExtractor`]),
);

// Keys that never change pixels here: bookkeeping, and Python-only switches whose effect the
// fields above already fix (`default_to_square`: an int `size` has transformers.js' meaning).
const INERT_KEYS = new Set([
  'processor_class',
  'auto_map',
  '_valid_processor_keys',
  'default_to_square',
  'input_data_format',
  'return_tensors',
  'device',
  'disable_grouping',
]);

const positiveInt = z.int({ error: 'must be a positive integer' }).min(1, 'must be a positive integer');
const triple = z.union([z.number(), z.array(z.number()).length(3, 'must hold 3 numbers (RGB)')]);
const sizeSchema = z.union([
  positiveInt,
  z.strictObject({ height: positiveInt, width: positiveInt }),
  z.strictObject({ shortest_edge: positiveInt.optional(), longest_edge: positiveInt.optional() }),
]);

const configSchema = z.looseObject({
  image_processor_type: z.string().optional(),
  feature_extractor_type: z.string().optional(),
  do_resize: z.boolean().optional(),
  size: sizeSchema.optional(),
  image_size: sizeSchema.optional(),
  max_size: positiveInt.optional(),
  resample: z
    .int()
    .min(0)
    .max(
      3,
      'must be 0 (nearest), 1 (lanczos), 2 (bilinear) or 3 (bicubic); box and hamming are not supported',
    )
    .optional(),
  do_center_crop: z.boolean().optional(),
  crop_size: z.union([positiveInt, z.strictObject({ height: positiveInt, width: positiveInt })]).optional(),
  do_rescale: z.boolean().optional(),
  rescale_factor: z.number().positive().optional(),
  do_normalize: z.boolean().optional(),
  image_mean: triple.optional(),
  image_std: triple.optional(),
  mean: triple.optional(),
  std: triple.optional(),
  do_convert_rgb: z.boolean().optional(),
  do_flip_channel_order: z.boolean().optional(),
  data_format: z.literal('channels_first', { error: 'only channels_first is produced' }).nullish(),
});
type Config = z.infer<typeof configSchema>;
const KNOWN_KEYS = new Set(Object.keys(configSchema.shape));

function asTriple(value: number | number[]): [number, number, number] {
  return typeof value === 'number' ? [value, value, value] : [value[0] ?? 0, value[1] ?? 0, value[2] ?? 0];
}

function resizeTarget(size: z.infer<typeof sizeSchema>, maxSize: number | undefined): ResizeTarget {
  // transformers.js reads an int as shortest edge = n, longest edge = max_size ?? n.
  if (typeof size === 'number') return { kind: 'edges', shortestEdge: size, longestEdge: maxSize ?? size };
  if ('height' in size) return { kind: 'exact', width: size.width, height: size.height };
  return { kind: 'edges', shortestEdge: size.shortest_edge, longestEdge: size.longest_edge };
}

/** Problems that the schema alone cannot see: unhonoured keys and incomplete step settings. */
function semanticIssues(raw: Record<string, unknown>, config: Config): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const [key, value] of Object.entries(raw)) {
    const harmless = value === null || value === false || INERT_KEYS.has(key);
    if (!KNOWN_KEYS.has(key) && !harmless) {
      issues.push({ path: key, message: 'is not supported by the gateway' });
    }
  }
  const type = (config.image_processor_type ?? config.feature_extractor_type)?.replace(/Fast$/, '');
  if (type !== undefined && !BASE_PROCESSOR_TYPES.has(type)) {
    issues.push({ path: 'image_processor_type', message: `${type} is not supported by the gateway` });
  }
  const size = config.size ?? config.image_size;
  if (config.do_resize === true && size === undefined) {
    issues.push({ path: 'size', message: 'is required when do_resize is true' });
  }
  if (
    typeof size === 'object' &&
    !('height' in size) &&
    size.shortest_edge === undefined &&
    size.longest_edge === undefined
  ) {
    issues.push({ path: 'size', message: 'needs {height, width}, shortest_edge or longest_edge' });
  }
  if (config.do_center_crop === true && config.crop_size === undefined) {
    issues.push({ path: 'crop_size', message: 'is required when do_center_crop is true' });
  }
  const mean = config.image_mean ?? config.mean;
  const std = config.image_std ?? config.std;
  if (config.do_normalize === true && (mean === undefined || std === undefined)) {
    issues.push({
      path: 'image_mean',
      message: 'image_mean and image_std are required when do_normalize is true',
    });
  }
  if (config.do_normalize === undefined && (mean !== undefined || std !== undefined)) {
    // Python's processors default to normalizing, transformers.js to not: say which.
    issues.push({ path: 'do_normalize', message: 'must be set when image_mean/image_std are given' });
  }
  if (asTriple(std ?? 1).includes(0)) issues.push({ path: 'image_std', message: 'must not hold 0' });
  return issues;
}

/**
 * Reads a preprocessor_config.json (parsed JSON) into the steps to run. Throws INVALID_ARGUMENT
 * listing every field it cannot honour: an unknown processor type, a pixel-changing key it does
 * not implement (do_pad, do_thumbnail, size_divisibility, …), box/hamming resampling (4, 5),
 * incomplete resize/crop/normalize settings.
 */
export function readPreprocessorConfig(json: unknown): ImagePreprocessing {
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) throw validationError('preprocessor_config.json', requestIssues(parsed.error));
  const config = parsed.data;
  const issues = semanticIssues(json as Record<string, unknown>, config);
  if (issues.length > 0) throw validationError('preprocessor_config.json', issues);

  const size = config.size ?? config.image_size;
  const mean = config.image_mean ?? config.mean;
  const std = config.image_std ?? config.std;
  const type = (config.image_processor_type ?? config.feature_extractor_type)?.replace(/Fast$/, '');
  const crop = config.crop_size;
  return {
    ...(type === undefined ? {} : { processorType: type }),
    convertRgb: config.do_convert_rgb ?? true,
    ...(size !== undefined && (config.do_resize ?? true)
      ? {
          resize: {
            target: resizeTarget(size, config.max_size),
            resample: RESAMPLE_BY_PIL_CODE[config.resample ?? 2] ?? 'bilinear',
          },
        }
      : {}),
    ...(config.do_center_crop === true && crop !== undefined
      ? { centerCrop: typeof crop === 'number' ? { width: crop, height: crop } : crop }
      : {}),
    ...((config.do_rescale ?? true) ? { rescaleFactor: config.rescale_factor ?? 1 / 255 } : {}),
    ...(config.do_normalize === true && mean !== undefined && std !== undefined
      ? { normalize: { mean: asTriple(mean), std: asTriple(std) } }
      : {}),
    flipChannelOrder: config.do_flip_channel_order ?? false,
  };
}

/**
 * The [channels, height, width] every image leaves the steps with, when the steps fix it: the
 * center crop, else an exact resize. Undefined when the size follows the image (edge resizes
 * without a crop, or no resize).
 */
export function pixelValuesGeometry(
  steps: ImagePreprocessing,
): { channels: number; height: number; width: number } | undefined {
  const fixed = steps.centerCrop ?? (steps.resize?.target.kind === 'exact' ? steps.resize.target : undefined);
  return fixed ? { channels: 3, height: fixed.height, width: fixed.width } : undefined;
}
