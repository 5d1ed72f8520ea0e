import { AdminAnswerError, AdminApiError, AdminUnreachableError } from '@modelgate/admin-client';

/** Added to an error that came from a gateway: the CLI talks to the registry. */
const GATEWAY_HINT =
  ' (this URL answers like a modelgate gateway; the admin API is served by the registry, port 8081 by ' +
  'default: set --registry or MODELGATE_REGISTRY to its URL)';

/** Process exit codes of `modelgate`. */
export const ExitCode = {
  OK: 0,
  /** The registry refused or failed the call, could not be reached, or a model ended FAILED. */
  FAILURE: 1,
  /** The command line was wrong: unknown command, missing or malformed argument or option. */
  USAGE: 2,
} as const;

/** A command line the CLI cannot act on; exits 2 with the message and a pointer to --help. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** A command that ran but did not succeed for a reason other than an API error (exit 1). */
export class CliFailure extends Error {
  override readonly name = 'CliFailure';
}

/**
 * What the CLI says of a failure: the error's message, and for a registry call the advice a CLI
 * user can act on (the token to set, the registry URL to point at).
 */
export function describeFailure(error: unknown): string {
  if (error instanceof AdminApiError) {
    let message = error.message;
    if (error.status === 401 && !error.facts.tokenSent) message += ' (set MODELGATE_TOKEN)';
    if (error.facts.component === 'gateway') message += GATEWAY_HINT;
    return message;
  }
  if (error instanceof AdminUnreachableError)
    return `${error.message} (set --registry or MODELGATE_REGISTRY)`;
  if (error instanceof AdminAnswerError)
    return `${error.message}: is it the registry's admin API? (set --registry or MODELGATE_REGISTRY)`;
  return error instanceof Error ? error.message : String(error);
}
