import { DEFAULT_EXTERNAL_DATA_NAME, type ModelTask, type RegisterModelRequest } from '@modelgate/contracts';
import { UsageError } from '../cli-errors.js';

/** The `model add` options that say where a model's files are, short of an upload. */
export interface ModelFileOptions {
  uri?: string;
  sha256?: string;
  tokenizerUri?: string;
  tokenizerSha256?: string;
  externalDataUri?: string;
  externalDataSha256?: string;
  externalDataName?: string;
  /** image-to-text: the encoder graph (encoder_model.onnx); --uri is then the decoder. */
  encoderUri?: string;
  encoderSha256?: string;
}

/** The files part of a registration without --path. */
export type RegistrationFiles = Pick<
  RegisterModelRequest,
  'artifact' | 'encoder' | 'externalData' | 'tokenizer' | 'source'
>;

const HF_SCHEME = /^hf:\/\//i;

/**
 * What `--uri` and its companions register: a Hugging Face Hub repository (`--uri hf://org/name
 * [@revision]`, whose files and digests the registry imports itself), or files by URI, each with
 * its SHA-256 (the .onnx file, its ONNX external data file, the tokenizer bundle; for an
 * image-to-text model the decoder as --uri and the encoder as --encoder-uri). A UsageError names
 * what is missing or does not belong.
 */
export function registrationFiles(options: ModelFileOptions, task: ModelTask): RegistrationFiles {
  const { uri } = options;
  const encoderGiven = options.encoderUri !== undefined || options.encoderSha256 !== undefined;
  if (encoderGiven && task !== 'image-to-text') {
    throw new UsageError(
      `--encoder-uri and --encoder-sha256 are for --task image-to-text only (the vision encoder), not ${task}`,
    );
  }
  if (uri === undefined) {
    throw new UsageError(
      'give the model: --path <dir> to upload it, --uri <uri> --sha256 <hex>, or --uri hf://<org>/<name>[@<revision>]',
    );
  }
  if (HF_SCHEME.test(uri)) {
    const extra = (
      [
        ['sha256', '--sha256'],
        ['tokenizerUri', '--tokenizer-uri'],
        ['tokenizerSha256', '--tokenizer-sha256'],
        ['externalDataUri', '--external-data-uri'],
        ['externalDataSha256', '--external-data-sha256'],
        ['externalDataName', '--external-data-name'],
        ['encoderUri', '--encoder-uri'],
        ['encoderSha256', '--encoder-sha256'],
      ] as const
    )
      .filter(([key]) => options[key] !== undefined)
      .map(([, flag]) => flag);
    if (extra.length > 0) {
      throw new UsageError(
        `--uri ${uri} imports the model, its external data and tokenizer files from the Hub, ` +
          `digests included: leave out ${extra.join(', ')}`,
      );
    }
    return { source: uri };
  }
  if (options.sha256 === undefined) throw new UsageError('--uri needs --sha256 <hex> of the file');
  if ((options.tokenizerUri === undefined) !== (options.tokenizerSha256 === undefined)) {
    throw new UsageError('--tokenizer-uri and --tokenizer-sha256 go together');
  }
  if ((options.externalDataUri === undefined) !== (options.externalDataSha256 === undefined)) {
    throw new UsageError('--external-data-uri and --external-data-sha256 go together');
  }
  if (options.externalDataName !== undefined && options.externalDataUri === undefined) {
    throw new UsageError('--external-data-name names the file of --external-data-uri; give that too');
  }
  if (task === 'image-to-text' && (options.encoderUri === undefined || options.encoderSha256 === undefined)) {
    throw new UsageError(
      '--task image-to-text needs --encoder-uri <uri> --encoder-sha256 <hex> (encoder_model.onnx) ' +
        'beside --uri and --sha256 of the decoder (decoder_model_merged.onnx)',
    );
  }
  return {
    artifact: { uri, sha256: options.sha256 },
    ...(options.encoderUri === undefined || options.encoderSha256 === undefined
      ? {}
      : { encoder: { uri: options.encoderUri, sha256: options.encoderSha256 } }),
    ...(options.externalDataUri === undefined || options.externalDataSha256 === undefined
      ? {}
      : {
          externalData: [
            {
              name: options.externalDataName ?? DEFAULT_EXTERNAL_DATA_NAME,
              uri: options.externalDataUri,
              sha256: options.externalDataSha256,
            },
          ],
        }),
    ...(options.tokenizerUri === undefined || options.tokenizerSha256 === undefined
      ? {}
      : { tokenizer: { uri: options.tokenizerUri, sha256: options.tokenizerSha256 } }),
  };
}
