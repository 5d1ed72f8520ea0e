export * from './bytes-codec.js';
export * from './fp16.js';
export * from './int64-values.js';
export * from './tensor-contents.js';
export * from './tensor-codec.js';
export * from './tensor-datatype.js';
export * from './tensor-shape.js';
export { HOST_IS_LITTLE_ENDIAN, type FixedWidthArray } from './fixed-width-codec.js';
export { formatShape } from './tensor-errors.js';
