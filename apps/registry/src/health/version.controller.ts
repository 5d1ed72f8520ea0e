import { Controller, Get } from '@nestjs/common';
import { MODELGATE_VERSION, type RegistryVersionView } from '@modelgate/contracts';
import { PublicRoute } from '../auth/access.decorator.js';

/** `GET /v1/version`: the release, for `modelgate version` (no token needed, like the probes). */
@Controller('v1/version')
export class VersionController {
  @Get()
  @PublicRoute()
  get(): RegistryVersionView {
    return { component: 'registry', version: MODELGATE_VERSION, api: 'v1' };
  }
}
