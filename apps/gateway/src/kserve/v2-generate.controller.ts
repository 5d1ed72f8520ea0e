import { Body, Controller, HttpCode, Inject, Param, Post, Req, Res } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type Logger } from '@modelgate/observability';
import { type FastifyReply, type FastifyRequest } from 'fastify';
import { LOGGER } from '../gateway.tokens.js';
import { clientGoneSignal } from '../http/client-gone.js';
import { type GenerationSseFormat, renameErrorFields, sendGenerationSse } from '../http/generation-answer.js';
import { GenerationService, collectText } from '../serving/generation/generation.service.js';
import { generationServerTiming } from '../serving/generation/serve-generation.js';
import {
  type TritonGenerateRequest,
  parseTritonGenerateRequest,
  toTritonGenerateAnswer,
} from './triton-generate.js';

/** The /serve field names the generation service's errors use, as this API names them. */
const TRITON_FIELDS = { text: 'text_input', 'parameters.max_new_tokens': 'max_tokens' };

/**
 * Triton's generate extension on text-generation models: `POST /v2/models/:model[/versions/:v]/generate`
 * answers `{model_name, model_version, text_output}`; `generate_stream` answers Server-Sent Events
 * of the same object, each with a text delta, the last with `finish_reason`. Without a version the
 * newest loaded one answers. Errors are the protocol's `{"error": "<message>"}`, in the stream too
 * once it began.
 */
@Controller('v2/models')
export class V2GenerateController {
  constructor(
    @Inject(GenerationService) private readonly generation: GenerationService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  @Post([':model/generate', ':model/versions/:version/generate'])
  @HttpCode(200)
  generate(
    @Param('model') model: string,
    @Param('version') version: string | undefined,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.run(model, version, body, false, request, reply);
  }

  @Post([':model/generate_stream', ':model/versions/:version/generate_stream'])
  @HttpCode(200)
  generateStream(
    @Param('model') model: string,
    @Param('version') version: string | undefined,
    @Body() body: unknown,
    @Req() request: FastifyRequest,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    return this.run(model, version, body, true, request, reply);
  }

  private async run(
    model: string,
    version: string | undefined,
    body: unknown,
    streamRoute: boolean,
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<void> {
    const parsed = parseTritonGenerateRequest(body);
    if (!streamRoute && parsed.stream === true) {
      throw new ModelgateError(
        ErrorCode.INVALID_ARGUMENT,
        'stream: true is answered by generate_stream, not generate',
        { field: 'stream' },
      );
    }
    const target = version === undefined ? { model } : { model, version };
    const stream = await this.generation
      .start(target, { kind: 'text', prompt: parsed.prompt }, parsed.params, {
        signal: clientGoneSignal(request.raw.socket),
        headers: request.headers,
        requestId: request.id,
      })
      .catch((error: unknown) => {
        throw renameErrorFields(error, TRITON_FIELDS);
      });
    const named = { name: stream.model, version: stream.version };
    const headers = { 'x-modelgate-model': `${stream.model}:${stream.version}` };
    if (streamRoute) {
      await sendGenerationSse(reply, [stream], tritonEvents(parsed, named), headers, this.logger);
      return;
    }
    const end = await collectText(stream.events);
    const text = parsed.prependPrompt ? parsed.prompt + end.text : end.text;
    await reply
      .headers({ ...headers, 'server-timing': generationServerTiming(end.timings) })
      .send(toTritonGenerateAnswer(named, text, end.finishReason));
  }
}

/**
 * generate_stream's events: the prompt first with `exclude_input_in_output: false`, one per delta,
 * and a last one with `finish_reason` (empty text_output); with `stream: false` only one, with
 * the whole text.
 */
function tritonEvents(
  request: TritonGenerateRequest,
  model: { name: string; version: string },
): GenerationSseFormat {
  const prefix = request.prependPrompt ? request.prompt : '';
  if (request.stream === false) {
    return {
      start: () => [],
      delta: () => undefined,
      end: (end) => [toTritonGenerateAnswer(model, prefix + end.text, end.finishReason)],
      error: (_status, body) => ({ error: body.error.message }),
    };
  }
  return {
    start: () => (prefix === '' ? [] : [toTritonGenerateAnswer(model, prefix)]),
    delta: (delta) => toTritonGenerateAnswer(model, delta.text),
    end: (end) => [toTritonGenerateAnswer(model, '', end.finishReason)],
    error: (_status, body) => ({ error: body.error.message }),
  };
}
