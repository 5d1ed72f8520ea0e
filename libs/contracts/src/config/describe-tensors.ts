/** What the descriptions read of a tensor (TensorMetadata, or a worker's declaration). */
type DescribedTensor = { readonly name: string; readonly datatype: string; readonly dims: readonly number[] };

/** One tensor as preparation errors name it: `name (DATATYPE [dims])`. */
export function describeTensor(tensor: DescribedTensor): string {
  return `${tensor.name} (${tensor.datatype} [${tensor.dims.join(', ')}])`;
}

/** Tensors as preparation errors list them, or `none`. */
export function describeTensors(tensors: readonly DescribedTensor[]): string {
  return tensors.length === 0 ? 'none' : tensors.map(describeTensor).join(', ');
}
