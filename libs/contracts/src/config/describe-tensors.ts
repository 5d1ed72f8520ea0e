import { type TensorMetadata } from '@modelgate/contracts';

/** One tensor as preparation errors name it: `name (DATATYPE [dims])`. */
export function describeTensor(tensor: TensorMetadata): string {
  return `${tensor.name} (${tensor.datatype} [${tensor.dims.join(', ')}])`;
}

/** Tensors as preparation errors list them, or `none`. */
export function describeTensors(tensors: readonly TensorMetadata[]): string {
  return tensors.length === 0 ? 'none' : tensors.map(describeTensor).join(', ');
}
