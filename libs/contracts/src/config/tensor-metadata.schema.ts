import { z } from 'zod';
import { TENSOR_DATATYPES } from '../tensors/tensor-datatype.js';

/** An Open Inference Protocol datatype name (BOOL, UINT8..UINT64, INT8..INT64, FP16/32/64, BYTES). */
export const tensorDatatypeSchema = z.enum(TENSOR_DATATYPES);

/** Name, datatype and dims of one model input or output, as read from the ONNX file. */
export const tensorMetadataSchema = z.object({
  name: z.string().min(1).describe('Tensor name in the graph, e.g. `input_ids`.'),
  datatype: tensorDatatypeSchema.describe('Element type.'),
  dims: z
    .array(z.int().min(-1, 'must be -1 (dynamic) or a non-negative size'))
    .describe('Dimensions; -1 marks a dynamic one (batch, sequence).'),
});

/** One model input or output: name, datatype and dims (-1 = dynamic). */
export type TensorMetadata = z.infer<typeof tensorMetadataSchema>;
