import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-errors.js';
import { registrationFiles } from './model-files.js';

const SHA = 'a'.repeat(64);

describe('registrationFiles', () => {
  it('registers an hf:// repository as a source, with no digests', () => {
    expect(registrationFiles({ uri: 'hf://acme/tiny@v1' }, 'text-classification')).toEqual({
      source: 'hf://acme/tiny@v1',
    });
  });

  it('refuses digests and tokenizer or external data files beside an hf:// source, naming them', () => {
    expect(() =>
      registrationFiles({ uri: 'hf://acme/tiny', sha256: SHA, externalDataName: 'w.bin' }, 'raw'),
    ).toThrow(
      new UsageError(
        '--uri hf://acme/tiny imports the model, its external data and tokenizer files from the Hub, ' +
          'digests included: leave out --sha256, --external-data-name',
      ),
    );
  });

  it('registers files by URI, the external data file named model.onnx_data unless told otherwise', () => {
    expect(
      registrationFiles(
        {
          uri: 's3://m/model.onnx',
          sha256: SHA,
          externalDataUri: 's3://m/model.onnx_data',
          externalDataSha256: SHA,
          tokenizerUri: 's3://m/tokenizer.tar',
          tokenizerSha256: SHA,
        },
        'feature-extraction',
      ),
    ).toEqual({
      artifact: { uri: 's3://m/model.onnx', sha256: SHA },
      externalData: [{ name: 'model.onnx_data', uri: 's3://m/model.onnx_data', sha256: SHA }],
      tokenizer: { uri: 's3://m/tokenizer.tar', sha256: SHA },
    });
    expect(
      registrationFiles(
        {
          uri: 's3://m/model.onnx',
          sha256: SHA,
          externalDataUri: 's3://m/w',
          externalDataSha256: SHA,
          externalDataName: 'model.onnx.data',
        },
        'raw',
      ).externalData,
    ).toEqual([{ name: 'model.onnx.data', uri: 's3://m/w', sha256: SHA }]);
  });

  it.each([
    [{}, /give the model: --path <dir> to upload it/],
    [{ uri: 'file:///m.onnx' }, /--uri needs --sha256/],
    [
      { uri: 'file:///m.onnx', sha256: SHA, externalDataUri: 'file:///w' },
      /--external-data-uri and --external-data-sha256 go together/,
    ],
    [
      { uri: 'file:///m.onnx', sha256: SHA, externalDataName: 'w' },
      /--external-data-name names the file of --external-data-uri/,
    ],
    [
      { uri: 'file:///m.onnx', sha256: SHA, tokenizerSha256: SHA },
      /--tokenizer-uri and --tokenizer-sha256 go together/,
    ],
  ])('refuses %j, saying what is missing', (options, message) => {
    expect(() => registrationFiles(options, 'text-classification')).toThrow(message);
  });
});

describe('registrationFiles: image-to-text', () => {
  const decoder = { uri: 'file:///m/onnx/decoder_model_merged.onnx', sha256: SHA };
  const encoder = { uri: 'file:///m/onnx/encoder_model.onnx', sha256: 'b'.repeat(64) };

  it('registers the decoder as the artifact and the encoder beside it', () => {
    expect(
      registrationFiles(
        { uri: decoder.uri, sha256: decoder.sha256, encoderUri: encoder.uri, encoderSha256: encoder.sha256 },
        'image-to-text',
      ),
    ).toEqual({ artifact: decoder, encoder });
    expect(registrationFiles({ uri: 'hf://acme/captioner' }, 'image-to-text')).toEqual({
      source: 'hf://acme/captioner',
    });
  });

  it.each([
    [
      'image-to-text',
      { uri: decoder.uri, sha256: SHA },
      /^--task image-to-text needs --encoder-uri <uri> --encoder-sha256 <hex> \(encoder_model.onnx\)/,
    ],
    [
      'image-to-text',
      { uri: decoder.uri, sha256: SHA, encoderUri: encoder.uri },
      /needs --encoder-uri <uri> --encoder-sha256/,
    ],
    [
      'image-to-text',
      { uri: 'hf://acme/captioner', encoderUri: encoder.uri },
      /from the Hub, digests included: leave out --encoder-uri$/,
    ],
    [
      'text-classification',
      { uri: decoder.uri, sha256: SHA, encoderUri: encoder.uri, encoderSha256: SHA },
      /^--encoder-uri and --encoder-sha256 are for --task image-to-text only \(the vision encoder\), not text-classification$/,
    ],
  ] as const)('refuses for %s %j, saying why', (task, options, message) => {
    expect(() => registrationFiles(options, task)).toThrow(message);
  });
});
