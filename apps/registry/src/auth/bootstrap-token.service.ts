import { Inject, Injectable, type OnModuleInit } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type RegistryConfig } from '../registry.config.js';
import { LOGGER, REGISTRY_CONFIG } from '../registry.tokens.js';
import { TokensService } from './tokens.service.js';

/**
 * Creates the first admin token before the API opens; prints a generated one exactly once, and
 * warns when REGISTRY_BOOTSTRAP_TOKEN is set for a bootstrap token that was revoked.
 */
@Injectable()
export class BootstrapTokenService implements OnModuleInit {
  constructor(
    private readonly tokens: TokensService,
    @Inject(REGISTRY_CONFIG) private readonly config: RegistryConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onModuleInit(): Promise<void> {
    const outcome = await this.tokens.ensureBootstrapToken(this.config.REGISTRY_BOOTSTRAP_TOKEN);
    if (outcome.kind === 'revoked') {
      this.logger.warn(
        'REGISTRY_BOOTSTRAP_TOKEN is set, but the bootstrap token was revoked and a revoke sticks: ' +
          'the value grants nothing. Unset it, or create tokens with another admin token.',
      );
      return;
    }
    if (outcome.kind !== 'generated') return;
    const generated = outcome.token;
    // stdout, not the log: the secret must not end up in log aggregation with the rest.
    process.stdout.write(
      [
        '',
        '==================== modelgate registry: first start ====================',
        'An admin token was generated. It is shown ONCE; store it now:',
        '',
        `  ${generated}`,
        '',
        'Use it as "Authorization: Bearer <token>" (MODELGATE_TOKEN for the CLI),',
        'then create named tokens with POST /v1/tokens and revoke this one.',
        '==========================================================================',
        '',
      ].join('\n'),
    );
    this.logger.warn('generated the bootstrap admin token (printed once on stdout)');
  }
}
