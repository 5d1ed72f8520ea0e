import { Controller, Get, Header, Inject, Param } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { EndpointTables } from '../endpoints/endpoint-tables.service.js';
import {
  type OpenAiModel,
  type OpenAiModelList,
  findOpenAiModel,
  listOpenAiModels,
} from './openai-models.js';

/** `GET /v1/models` and `GET /v1/models/{id}`: the endpoints the OpenAI routes serve. */
@Controller('v1')
export class ModelsController {
  /** When this gateway first listed each endpoint, Unix seconds. */
  private readonly firstListed = new Map<string, number>();

  constructor(@Inject(EndpointTables) private readonly tables: EndpointTables) {}

  // The registry's admin API has the same paths (its model list): the CLI tells the answers apart by it.
  @Get('models')
  @Header('x-modelgate-component', 'gateway')
  list(): OpenAiModelList {
    return listOpenAiModels(this.endpoints().values(), (name) => this.createdOf(name));
  }

  @Get('models/:id')
  @Header('x-modelgate-component', 'gateway')
  get(@Param('id') id: string): OpenAiModel {
    return findOpenAiModel(this.endpoints(), id, (name) => this.createdOf(name));
  }

  private endpoints() {
    const table = this.tables.current;
    if (!table) throw new ModelgateError(ErrorCode.UNAVAILABLE, 'the gateway has no configuration yet');
    return table.endpoints;
  }

  private createdOf(name: string): number {
    let created = this.firstListed.get(name);
    if (created === undefined) {
      created = Math.floor(Date.now() / 1000);
      this.firstListed.set(name, created);
    }
    return created;
  }
}
