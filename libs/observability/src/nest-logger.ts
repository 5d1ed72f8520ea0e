import { type Logger } from 'pino';

/** The shape of Nest's LoggerService, implemented structurally so this lib needs no Nest. */
export interface NestLoggerLike {
  log(message: unknown, ...rest: unknown[]): void;
  error(message: unknown, ...rest: unknown[]): void;
  warn(message: unknown, ...rest: unknown[]): void;
  debug(message: unknown, ...rest: unknown[]): void;
  verbose(message: unknown, ...rest: unknown[]): void;
  fatal(message: unknown, ...rest: unknown[]): void;
}

/** Routes Nest's own log lines (bootstrap, routes) into the app's pino logger. */
export function toNestLogger(logger: Logger): NestLoggerLike {
  const write =
    (level: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal') =>
    (message: unknown, ...rest: unknown[]): void => {
      const context = rest.length > 0 ? rest[rest.length - 1] : undefined;
      logger[level]({ context }, typeof message === 'string' ? message : JSON.stringify(message));
    };
  return {
    log: write('debug'),
    error: write('error'),
    warn: write('warn'),
    debug: write('debug'),
    verbose: write('trace'),
    fatal: write('fatal'),
  };
}
