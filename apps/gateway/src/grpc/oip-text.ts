/**
 * The gateway's gRPC face reads text: a ModelInfer request whose inputs are all BYTES, named as
 * the endpoint's task reads them, becomes that endpoint's /serve body; the answer's predictions
 * go back as one BYTES output, `predictions` ([n], each a JSON text). Inputs by task:
 *   text-classification: text [n] (+ text_pair [n]); feature-extraction, token-classification:
 *   text [n]; question-answering: question [n] + context [n]; text-ranking: query [1] + texts [n];
 *   text-generation: text [1]; image-classification, image-to-text: image [1] (the image file's bytes).
 * The request's parameters become the body's (text-ranking's top-level fields: top_n, return_text,
 * raw_scores, truncate); a per-input parameter is refused. Pure: no I/O.
 */
import {
  ErrorCode,
  type ModelTask,
  ModelgateError,
  type OipInferParameter,
  type OipInferRequest,
  contentsToTypedArray,
  decodeTensor,
  encodeTensor,
  normalizeShape,
} from '@modelgate/contracts';

/** The BYTES inputs each task reads, in the order its metadata lists them; `one`: a single element. */
export const TEXT_INPUTS: Partial<
  Record<ModelTask, readonly { name: string; one?: boolean; optional?: boolean }[]>
> = {
  'text-classification': [{ name: 'text' }, { name: 'text_pair', optional: true }],
  'feature-extraction': [{ name: 'text' }],
  'token-classification': [{ name: 'text' }],
  'question-answering': [{ name: 'question' }, { name: 'context' }],
  'text-ranking': [{ name: 'query', one: true }, { name: 'texts' }],
  'text-generation': [{ name: 'text', one: true }],
  'image-classification': [{ name: 'image', one: true }],
  'image-to-text': [{ name: 'image', one: true }],
};

/** The output that carries the predictions. */
export const PREDICTIONS_OUTPUT = 'predictions';

function invalid(message: string, field?: string): ModelgateError {
  return new ModelgateError(ErrorCode.INVALID_ARGUMENT, message, field === undefined ? {} : { field });
}

/** Whether every input of `request` is BYTES (and there is one): the text face, not raw tensors. */
export function isTextRequest(request: OipInferRequest): boolean {
  return request.inputs.length > 0 && request.inputs.every((input) => input.datatype === 'BYTES');
}

/** A parameter's value, whichever member of the oneof is set. */
export function parameterValue(parameter: OipInferParameter): boolean | number | string | undefined {
  const choice = parameter.parameter_choice;
  if (choice === 'bool_param') return parameter.bool_param;
  if (choice === 'string_param') return parameter.string_param;
  if (choice === 'double_param') return parameter.double_param;
  if (choice === 'int64_param' || choice === 'uint64_param') return Number(parameter[choice]);
  return undefined;
}

/** The request's parameters as plain values. */
export function parameterValues(parameters: OipInferRequest['parameters']): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(parameters ?? {}).map(([key, parameter]) => [key, parameterValue(parameter)]),
  );
}

/** The elements of each BYTES input, by name (raw_input_contents or contents.bytes_contents). */
function bytesInputs(request: OipInferRequest): Map<string, Uint8Array[]> {
  const raw = request.raw_input_contents ?? [];
  if (raw.length > 0 && raw.length !== request.inputs.length) {
    throw invalid(`raw_input_contents has ${raw.length} entries for ${request.inputs.length} inputs`);
  }
  const byName = new Map<string, Uint8Array[]>();
  request.inputs.forEach((input, index) => {
    if (byName.has(input.name)) throw invalid(`input '${input.name}' is given twice`, input.name);
    if (Object.keys(input.parameters ?? {}).length > 0) {
      throw invalid(`input '${input.name}' has parameters: put them on the request`, input.name);
    }
    const dims = normalizeShape(input.shape, input.name);
    if (dims.length > 2 || (dims.length === 2 && dims[1] !== 1)) {
      throw invalid(
        `input '${input.name}' has shape [${dims.join(',')}]; send [n] (or [n, 1]) elements`,
        input.name,
      );
    }
    const bytes = raw[index];
    const data =
      bytes !== undefined
        ? decodeTensor('BYTES', dims, bytes, input.name)
        : contentsToTypedArray('BYTES', dims, input.contents as never, input.name);
    byName.set(input.name, data);
  });
  return byName;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function texts(elements: readonly Uint8Array[], name: string): string[] {
  return elements.map((element, index) => {
    try {
      return utf8.decode(element);
    } catch {
      throw invalid(`input '${name}' element ${index} is not UTF-8 text`, name);
    }
  });
}

/** The /serve body of `request` for an endpoint of `task`. */
export function textServeBody(
  request: OipInferRequest,
  task: ModelTask,
  endpoint: string,
): Record<string, unknown> {
  const expected = TEXT_INPUTS[task];
  if (expected === undefined) {
    throw invalid(
      `endpoint ${endpoint} (${task}) takes no text: send the model's tensors to the model by its name`,
    );
  }
  const given = bytesInputs(request);
  for (const name of given.keys()) {
    if (!expected.some((input) => input.name === name)) {
      throw invalid(
        `unknown input '${name}': a ${task} endpoint reads ${expected.map((input) => input.name).join(', ')} (BYTES)`,
        name,
      );
    }
  }
  const fields: Record<string, unknown> = {};
  for (const input of expected) {
    const elements = given.get(input.name);
    if (elements === undefined) {
      if (input.optional === true) continue;
      throw invalid(`missing input '${input.name}' (BYTES)`, input.name);
    }
    if (input.one === true && elements.length !== 1) {
      throw invalid(`input '${input.name}' holds ${elements.length} elements; it takes one`, input.name);
    }
    fields[input.name] =
      input.name === 'image'
        ? Buffer.from(elements[0] ?? new Uint8Array()).toString('base64')
        : input.one === true
          ? texts(elements, input.name)[0]
          : texts(elements, input.name);
  }
  const parameters = parameterValues(request.parameters);
  if (task === 'text-ranking') return { ...fields, ...parameters };
  return Object.keys(parameters).length === 0 ? fields : { ...fields, parameters };
}

/** The `predictions` output of an answer: each prediction's JSON, BYTES [n], in raw_output_contents. */
export function predictionsOutput(predictions: readonly unknown[]): {
  output: { name: string; datatype: 'BYTES'; shape: number[]; parameters: Record<string, OipInferParameter> };
  raw: Uint8Array;
} {
  const elements = predictions.map((prediction) => JSON.stringify(prediction));
  return {
    output: {
      name: PREDICTIONS_OUTPUT,
      datatype: 'BYTES',
      shape: [elements.length],
      parameters: { content_type: { string_param: 'application/json', parameter_choice: 'string_param' } },
    },
    raw: encodeTensor('BYTES', [elements.length], elements, PREDICTIONS_OUTPUT),
  };
}
