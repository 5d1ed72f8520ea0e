import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli-errors.js';
import { registrationFiles } from './model-files.js';

const SHA = 'a'.repeat(64);

describe('registrationFiles', () => {
  it('registers an hf:// repository as a source, with no digests', () => {
    expect(registrationFiles({ uri: 'hf://acme/tiny@v1' })).toEqual({ source: 'hf://acme/tiny@v1' });
  });

  it('refuses digests and tokenizer or external data files beside an hf:// source, naming them', () => {
    expect(() =>
      registrationFiles({ uri: 'hf://acme/tiny', sha256: SHA, externalDataName: 'w.bin' }),
    ).toThrow(
      new UsageError(
        '--uri hf://acme/tiny imports the model, its external data and tokenizer files from the Hub, ' +
          'digests included: leave out --sha256, --external-data-name',
      ),
    );
  });

  it('registers files by URI, the external data file named model.onnx_data unless told otherwise', () => {
    expect(
      registrationFiles({
        uri: 's3://m/model.onnx',
        sha256: SHA,
        externalDataUri: 's3://m/model.onnx_data',
        externalDataSha256: SHA,
        tokenizerUri: 's3://m/tokenizer.tar',
        tokenizerSha256: SHA,
      }),
    ).toEqual({
      artifact: { uri: 's3://m/model.onnx', sha256: SHA },
      externalData: [{ name: 'model.onnx_data', uri: 's3://m/model.onnx_data', sha256: SHA }],
      tokenizer: { uri: 's3://m/tokenizer.tar', sha256: SHA },
    });
    expect(
      registrationFiles({
        uri: 's3://m/model.onnx',
        sha256: SHA,
        externalDataUri: 's3://m/w',
        externalDataSha256: SHA,
        externalDataName: 'model.onnx.data',
      }).externalData,
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
    expect(() => registrationFiles(options)).toThrow(message);
  });
});
