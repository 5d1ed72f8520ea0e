import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger } from 'pino';

/** Paths whose values never reach a log line. */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  'request.headers.authorization',
  '*.token',
];

/** A JSON logger for one app; `level` defaults to LOG_LEVEL-style `info`. */
export function createLogger(options: { app: string; level?: LevelWithSilent }): Logger {
  return pino({
    name: options.app,
    level: options.level ?? 'info',
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { app: options.app, pid: process.pid },
  });
}
