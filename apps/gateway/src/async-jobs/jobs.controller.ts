import { Controller, Get, Inject, Param } from '@nestjs/common';
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { ASYNC_INFERENCE } from '../gateway.tokens.js';
import { type AsyncInference, type JobView } from './async-inference.js';

/** `GET /jobs/:id`: the state and, once done, the result of an asynchronous request. */
@Controller('jobs')
export class JobsController {
  constructor(@Inject(ASYNC_INFERENCE) private readonly asyncInference: AsyncInference | undefined) {}

  @Get(':id')
  job(@Param('id') id: string): Promise<JobView> {
    if (!this.asyncInference) {
      throw new ModelgateError(
        ErrorCode.UNAVAILABLE,
        'asynchronous inference needs Redis: start the gateway with REDIS_URL',
      );
    }
    return this.asyncInference.status(id);
  }
}
