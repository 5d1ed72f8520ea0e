import { DEFAULT_EXTERNAL_DATA_NAME, type RegisterModelRequest } from '@modelgate/contracts';
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
}

/** The files part of a registration without --path. */
export type RegistrationFiles = Pick<
  RegisterModelRequest,
  'artifact' | 'externalData' | 'tokenizer' | 'source'
>;

const HF_SCHEME = /^hf:\/\//i;

/**
 * What `--uri` and its companions register: a Hugging Face Hub repository (`--uri hf://org/name
 * [@revision]`, whose files and digests the registry imports itself), or files by URI, each with
 * its SHA-256 (the .onnx file, its ONNX external data file, the tokenizer bundle). A UsageError
 * names what is missing or does not belong.
 */
export function registrationFiles(options: ModelFileOptions): RegistrationFiles {
  const { uri } = options;
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
  return {
    artifact: { uri, sha256: options.sha256 },
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
