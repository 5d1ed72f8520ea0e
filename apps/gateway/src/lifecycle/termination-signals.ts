import { type INestApplication } from '@nestjs/common';
import { type Logger } from '@modelgate/observability';
import { type GatewayLifecycle } from './gateway-lifecycle.js';
import { type ShutdownTiming, shutDownGracefully, timerClock } from './graceful-shutdown.js';

/** Signals that start a graceful shutdown. */
const TERMINATION_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/**
 * Shuts this event loop down gracefully on SIGTERM or SIGINT (graceful-shutdown.ts), then exits:
 * 0 when drained or when the drain timed out (logged), 1 when closing failed.
 *
 * A repeated signal means "die now" for a gateway that is its own process. An event loop forked
 * by the cluster primary ignores repeats instead: its signals come from the primary (which kills
 * the loops itself on a second one), and a terminal's Ctrl-C reaches it twice, once from the
 * terminal and once forwarded.
 */
export function shutDownOnSignals(
  app: INestApplication,
  lifecycle: GatewayLifecycle,
  timing: ShutdownTiming,
  logger: Logger,
  repeats: 'exit-now' | 'ignore',
  /** Runs after the app has closed, before the exit (the co-located worker's drain). */
  afterClose?: (signal: NodeJS.Signals) => Promise<void>,
): void {
  let started = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (started) {
      if (repeats === 'ignore') return;
      logger.warn({ signal }, 'second termination signal: exiting without draining');
      process.exit(1);
    }
    started = true;
    logger.info({ signal, ...timing }, 'shutting down: not ready, still serving');
    shutDownGracefully(
      { markUnready: () => lifecycle.beginShutdown(), close: () => app.close() },
      timing,
      timerClock,
      (phase) => {
        if (phase === 'closing') logger.info('shutting down: stopped accepting, draining in-flight requests');
        if (phase === 'drained') logger.info('shutting down: drained');
        if (phase === 'drain-timeout')
          logger.warn(
            { drainTimeoutMs: timing.drainTimeoutMs },
            'shutting down: drain timed out; exiting with requests still in flight',
          );
      },
    )
      .then(() => afterClose?.(signal))
      .then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutting down failed');
          process.exit(1);
        },
      );
  };
  for (const signal of TERMINATION_SIGNALS) process.on(signal, onSignal);
}
