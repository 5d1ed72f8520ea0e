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
