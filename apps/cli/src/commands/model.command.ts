import { type ModelUploadSettings } from '@modelgate/admin-client';
import { type ExecutionProvider, MODEL_TASKS, type ModelTask, type ModelView } from '@modelgate/contracts';
import { type Command, Option } from 'commander';
import {
  asArgParser,
  type CommandContext,
  type ContextFactory,
  withListTable,
  withNameOutput,
  withWideColumns,
} from '../cli-context.js';
import { CliFailure } from '../cli-errors.js';
import { renderModel, renderModelTable } from '../output/model-render.js';
import { checkUploadSettings, refuseInertBatchingOptions } from './model-add-checks.js';
import { buildUploadForm, findModelFiles } from './model-directory.js';
import { type ModelFileOptions, registrationFiles } from './model-files.js';
import {
  parseBatchSizes,
  parseExecutionProviders,
  parseModelRef,
  parseNonNegativeInt,
  parsePaddingRatio,
  parsePositiveInt,
  parseResourceName,
} from './parse-arguments.js';
import { formatElapsed, waitForPreparation } from './preparation-progress.js';
import { registerVersionPolicyCommand } from './version-policy.command.js';
import { warnAboutWorkerGroups } from './fleet-warnings.js';
import { UploadProgress, formatBytes } from '../output/upload-progress.js';

/** Longest `model add` waits for preparation by default, in seconds. */
const DEFAULT_WAIT_TIMEOUT_S = 900;

interface ModelAddOptions extends ModelFileOptions {
  path?: string;
  task: ModelTask;
  version?: number;
  maxBatchSize?: number;
  maxQueueSize?: number;
  maxBatchTokens?: number;
  maxQueueDelayUs?: number;
  preferredBatchSizes?: number[];
  maxPaddingRatio?: number;
  instances?: number;
  ep?: ExecutionProvider[];
  workerGroup?: string;
  wait: boolean;
  waitTimeoutS: number;
}

/** `model add`'s options naming the files: an export directory to upload, or URIs with digests. */
function withFileOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--path <dir>',
        'Hugging Face ONNX export directory to upload (model.onnx, model.onnx_data if any, tokenizer files; ' +
          'image-to-text: encoder_model.onnx and decoder_model_merged.onnx, at the top or under onnx/)',
      ).conflicts([
        'uri',
        'sha256',
        'externalDataUri',
        'externalDataSha256',
        'externalDataName',
        'encoderUri',
        'encoderSha256',
        'tokenizerUri',
        'tokenizerSha256',
      ]),
    )
    .option(
      '--uri <uri>',
      'URI of the .onnx file the registry fetches (file://, http(s)://, s3://), or hf://<org>/<name>[@<revision>] ' +
        'to import onnx/model.onnx (+ onnx/model.onnx_data; image-to-text: onnx/encoder_model.onnx and ' +
        'onnx/decoder_model_merged.onnx) and the tokenizer files from the Hugging Face Hub; image-to-text: the decoder',
    )
    .option('--sha256 <hex>', 'SHA-256 of the .onnx file (with a file, http(s) or s3 --uri)')
    .option(
      '--external-data-uri <uri>',
      "URI of the model's ONNX external data file (weights outside the graph)",
    )
    .option('--external-data-sha256 <hex>', 'SHA-256 of the external data file')
    .option(
      '--external-data-name <file>',
      'file name the graph records for its external data (default: model.onnx_data)',
    )
    .option(
      '--encoder-uri <uri>',
      'image-to-text only: URI of the vision encoder (encoder_model.onnx); --uri is then the decoder (decoder_model_merged.onnx)',
    )
    .option('--encoder-sha256 <hex>', 'SHA-256 of the encoder file')
    .option(
      '--tokenizer-uri <uri>',
      'URI of the tokenizer bundle (with --uri; required unless --task raw, which takes none)',
    )
    .option('--tokenizer-sha256 <hex>', 'SHA-256 of the tokenizer bundle');
}

/** `model add`'s task, version and serving settings (batching, runtime, worker group). */
function withSettingsOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--task <task>',
        'what the model does (text-generation: a decoder export with past, merged (use_cache_branch) or not, e.g. optimum-cli export onnx --task text-generation-with-past; ' +
          'image-classification: a vision export with pixel_values, its preprocessor_config.json uploaded beside it; ' +
          'image-to-text: a vision-encoder-decoder export, encoder_model.onnx + decoder_model_merged.onnx, e.g. ' +
          'optimum-cli export onnx --task image-to-text-with-past)',
      )
        .choices(MODEL_TASKS)
        .makeOptionMandatory(),
    )
    .option('--version <n>', 'version number (default: the next free one)', asArgParser(parsePositiveInt))
    .option(
      '--max-batch-size <n>',
      'most requests in one model run (text-generation: most sequences decoding together; 1 or left out for a decoder without position_ids)',
      asArgParser(parsePositiveInt),
    )
    .option(
      '--max-queue-size <n>',
      'most requests waiting, beyond which the gateway answers 429 (text-generation: sequences waiting for a slot)',
      asArgParser(parsePositiveInt),
    )
    .option(
      '--max-batch-tokens <n>',
      'most padded tokens in one model run (text-generation: KV-cache budget in tokens, each sequence reserving prompt + max_new_tokens)',
      asArgParser(parsePositiveInt),
    )
    .option(
      '--preferred-batch-sizes <sizes>',
      'batch sizes dispatched as soon as reached, e.g. 4,8 (each <= --max-batch-size; not for text-generation)',
      asArgParser(parseBatchSizes),
    )
    .option(
      '--max-queue-delay-us <us>',
      'longest a batch waits to reach a preferred size while another batch runs, in µs: needs --preferred-batch-sizes and --instances 2 or more (not for text-generation)',
      asArgParser(parseNonNegativeInt),
    )
    .option(
      '--max-padding-ratio <r>',
      "length grouping: a batch's computed tokens stay within r × its real tokens (1.15 by default; not for text-generation)",
      asArgParser(parsePaddingRatio),
    )
    .option(
      '--instances <n>',
      'onnxruntime sessions per worker (2 or more on the CPU: an encoder model also gets a solo session, see WORKER_SOLO_SESSION)',
      asArgParser(parsePositiveInt),
    )
    .option(
      '--ep <providers>',
      'execution providers in order of preference, e.g. tensorrt,cuda,cpu',
      asArgParser(parseExecutionProviders),
    )
    .option(
      '--worker-group <name>',
      'worker group that loads the model (default: default)',
      asArgParser(parseResourceName),
    );
}

/** `modelgate model add|list|show|remove`. */
export function registerModelCommands(program: Command, contextOf: ContextFactory): void {
  const model = program.command('model').description('register, list, inspect and remove model versions');

  const add = withNameOutput(model.command('add'))
    .argument('<name>', 'model name; versions of one name share it', asArgParser(parseResourceName))
    .description(
      'register a model: upload an export directory (--path) or point at its files (--uri, --sha256); ' +
        'then wait until it is prepared (READY) unless --no-wait',
    );
  withFileOptions(add);
  withSettingsOptions(add);
  add
    .option('--no-wait', 'return once registered (PENDING) instead of waiting for READY')
    .addOption(
      new Option('--wait-timeout-s <s>', 'longest to wait for preparation, in seconds')
        .argParser(asArgParser(parsePositiveInt))
        .default(DEFAULT_WAIT_TIMEOUT_S)
        .conflicts('wait'),
    )
    .action(async (name: string, options: ModelAddOptions, command: Command) => {
      await addModel(contextOf(command), name, options);
    });

  withListTable(withNameOutput(withWideColumns(model.command('list'))))
    .description('list model versions')
    .option('--name <name>', 'only the versions of this model', asArgParser(parseResourceName))
    .action(async (options: { name?: string }, command: Command) => {
      const { client, output } = contextOf(command);
      const models = await client.listModels(options.name);
      output.result(models, (wide) => renderModelTable(models, wide, output.headers));
    });

  withNameOutput(model.command('show <name:version>'))
    .description('show one model version: status, inputs and outputs, batching, runtime')
    .action(async (id: string, _options: unknown, command: Command) => {
      const key = parseModelRef(id);
      const { client, output } = contextOf(command);
      const found = await client.getModel(key);
      output.result(found, () => renderModel(found));
    });

  registerVersionPolicyCommand(model, contextOf);

  model
    .command('remove <name:version>')
    .description('delete a model version (refused while a route uses it)')
    .action(async (id: string, _options: unknown, command: Command) => {
      const key = parseModelRef(id);
      const { client, output } = contextOf(command);
      await client.removeModel(key);
      output.result(undefined, () => `removed model ${id}`);
    });
}

async function addModel(context: CommandContext, name: string, options: ModelAddOptions): Promise<void> {
  const { client, output } = context;
  refuseInertBatchingOptions(options);
  const settings = modelSettings(name, options);
  let accepted: ModelView;
  if (options.path !== undefined) {
    checkUploadSettings(settings);
    const files = await findModelFiles(options.path, options.task);
    const total = files.reduce((sum, file) => sum + file.bytes, 0);
    output.note(
      `uploading ${files.map((file) => file.name).join(', ')} (${formatBytes(total)}) from ${options.path}`,
    );
    const started = Date.now();
    const progress = new UploadProgress({
      totalBytes: total,
      interactive: output.interactive,
      write: (text) => void output.streams.stderr.write(text),
    });
    let sent = 0;
    accepted = await client.uploadModel(await buildUploadForm(settings, files), {
      onBytes: (bytes) => {
        sent = bytes;
        progress.update(bytes);
      },
    });
    progress.finish(sent);
    output.note(`uploaded as ${accepted.id} in ${formatElapsed(Date.now() - started)}`);
  } else {
    accepted = await client.registerModel({ ...settings, ...registrationFiles(options, options.task) });
    output.note(`registered ${accepted.id}`);
  }
  if (!options.wait) {
    output.result(accepted, () => renderModel(accepted));
    return;
  }
  const prepared = await waitForPreparation(client, accepted, output, options.waitTimeoutS * 1000);
  output.result(prepared, () => renderModel(prepared));
  if (prepared.status === 'FAILED') {
    throw new CliFailure(`model ${prepared.id} FAILED: ${prepared.statusReason ?? 'no reason given'}`);
  }
  await warnAboutWorkerGroups(client, output, [{ name: prepared.name, version: prepared.version }]);
}

/** Name, task and the limits given on the command line; unset limits are left to the registry's defaults. */
function modelSettings(name: string, options: ModelAddOptions): ModelUploadSettings {
  const batching = {
    ...(options.maxBatchSize === undefined ? {} : { maxBatchSize: options.maxBatchSize }),
    ...(options.maxQueueSize === undefined ? {} : { maxQueueSize: options.maxQueueSize }),
    ...(options.maxBatchTokens === undefined ? {} : { maxBatchTokens: options.maxBatchTokens }),
    ...(options.maxQueueDelayUs === undefined ? {} : { maxQueueDelayMicros: options.maxQueueDelayUs }),
    ...(options.preferredBatchSizes === undefined
      ? {}
      : { preferredBatchSizes: options.preferredBatchSizes }),
    ...(options.maxPaddingRatio === undefined ? {} : { maxPaddingRatio: options.maxPaddingRatio }),
  };
  const runtime = {
    ...(options.ep === undefined ? {} : { executionProviders: options.ep }),
    ...(options.instances === undefined ? {} : { instances: options.instances }),
  };
  return {
    name,
    task: options.task,
    ...(options.version === undefined ? {} : { version: String(options.version) }),
    ...(options.workerGroup === undefined ? {} : { workerGroup: options.workerGroup }),
    ...(Object.keys(batching).length === 0 ? {} : { batching }),
    ...(Object.keys(runtime).length === 0 ? {} : { runtime }),
  };
}
