import { Controller, Get } from '@nestjs/common';
import { MODELGATE_VERSION } from '@modelgate/contracts';
import { PublicRoute } from '../auth/access.decorator.js';

/** What `GET /v1/version` answers. */
export interface RegistryVersionView {
  /** Which modelgate component answered: lets a client tell the registry from a gateway. */
  component: 'registry';
  version: string;
  /** The admin API's version, the path prefix. */
  api: 'v1';
}

/** `GET /v1/version`: the release, for `modelgate version` (no token needed, like the probes). */
@Controller('v1/version')
export class VersionController {
  @Get()
  @PublicRoute()
  get(): RegistryVersionView {
    return { component: 'registry', version: MODELGATE_VERSION, api: 'v1' };
  }
}
