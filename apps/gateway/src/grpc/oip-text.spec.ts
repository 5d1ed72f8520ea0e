import { type OipInferRequest, encodeTensor } from '@modelgate/contracts';
import { describe, expect, it } from 'vitest';
import { isTextRequest, parameterValue, predictionsOutput, textServeBody } from './oip-text.js';

const raw = (elements: string[]) => encodeTensor('BYTES', [elements.length], elements);
const request = (
  inputs: [string, string[]][],
  parameters: OipInferRequest['parameters'] = {},
): OipInferRequest => ({
  model_name: 'e',
  inputs: inputs.map(([name, elements]) => ({ name, datatype: 'BYTES', shape: [elements.length] })),
  raw_input_contents: inputs.map(([, elements]) => raw(elements)),
  parameters,
});

describe('the text of the gRPC face', () => {
  it("reads BYTES inputs as the endpoint's task names them, parameters into the body", () => {
    const int = { int64_param: '2', parameter_choice: 'int64_param' };
    expect(
      textServeBody(request([['text', ['a', 'b']]], { top_k: int }), 'text-classification', 'e'),
    ).toEqual({
      text: ['a', 'b'],
      parameters: { top_k: 2 },
    });
    expect(
      textServeBody(
        request(
          [
            ['query', ['q']],
            ['texts', ['a', 'b']],
          ],
          { top_n: int },
        ),
        'text-ranking',
        'e',
      ),
    ).toEqual({
      query: 'q',
      texts: ['a', 'b'],
      top_n: 2,
    });
    expect(
      textServeBody(
        request([
          ['question', ['who?']],
          ['context', ['me']],
        ]),
        'question-answering',
        'e',
      ),
    ).toEqual({
      question: ['who?'],
      context: ['me'],
    });
    expect(textServeBody(request([['text', ['Once']]]), 'text-generation', 'e')).toEqual({ text: 'Once' });
    expect(textServeBody(request([['image', ['\u0089PNG']]]), 'image-classification', 'e')).toEqual({
      image: Buffer.from('\u0089PNG').toString('base64'),
    });
  });

  it('refuses inputs the task does not read, missing ones, and more than one where one goes', () => {
    expect(() => textServeBody(request([['txt', ['a']]]), 'feature-extraction', 'e')).toThrow(
      "unknown input 'txt': a feature-extraction endpoint reads text (BYTES)",
    );
    expect(() => textServeBody(request([['question', ['a']]]), 'question-answering', 'e')).toThrow(
      "missing input 'context'",
    );
    expect(() => textServeBody(request([['text', ['a', 'b']]]), 'text-generation', 'e')).toThrow(
      "input 'text' holds 2 elements; it takes one",
    );
    expect(() => textServeBody(request([['text', ['a']]]), 'raw', 'e')).toThrow('takes no text');
    const badUtf8: OipInferRequest = {
      model_name: 'e',
      inputs: [{ name: 'text', datatype: 'BYTES', shape: [1] }],
      raw_input_contents: [encodeTensor('BYTES', [1], [Uint8Array.from([0xff, 0xfe])])],
    };
    expect(() => textServeBody(badUtf8, 'feature-extraction', 'e')).toThrow('is not UTF-8 text');
  });

  it('tells text from tensors, reads each kind of parameter, and writes predictions as JSON elements', () => {
    expect(isTextRequest(request([['text', ['a']]]))).toBe(true);
    expect(
      isTextRequest({ model_name: 'm', inputs: [{ name: 'input_ids', datatype: 'INT64', shape: [1, 1] }] }),
    ).toBe(false);
    expect(parameterValue({ bool_param: true, parameter_choice: 'bool_param' })).toBe(true);
    expect(parameterValue({ double_param: 0.5, parameter_choice: 'double_param' })).toBe(0.5);
    expect(parameterValue({ string_param: 'simple', parameter_choice: 'string_param' })).toBe('simple');
    const { output, raw: bytes } = predictionsOutput([[{ label: 'POSITIVE', score: 0.9 }]]);
    expect(output).toMatchObject({ name: 'predictions', datatype: 'BYTES', shape: [1] });
    expect(Buffer.from(bytes).subarray(4).toString()).toBe('[{"label":"POSITIVE","score":0.9}]');
  });
});
