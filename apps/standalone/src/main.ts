import { StandaloneLauncher } from './launcher/standalone-launcher.js';
import { loadStandaloneConfig } from './standalone.config.js';

/** The launcher's own lines; the apps' JSON logs go to the same stdout. */
function say(line: string): void {
  process.stdout.write(`[modelgate] ${line}\n`);
}

/** Signals this close together are one Ctrl-C delivered twice (terminal and npm), in ms. */
const SAME_PRESS_MS = 1000;

function main(): void {
  // `npm start -- --port 9090` would start on the default ports as if nothing had been said.
  const args = process.argv.slice(2);
  if (args.length > 0) {
    process.stderr.write(
      `the launcher takes no arguments (got ${args.join(' ')}): its settings are environment variables, ` +
        'e.g. GATEWAY_PORT=9080 npm start (see the README)\n',
    );
    process.exit(2);
  }
  let config;
  try {
    config = loadStandaloneConfig();
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(2);
  }
  const launcher = new StandaloneLauncher(config, process.env, say);
  // A reader that went away (`npm start | head`) must not cut the shutdown short.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

  let firstSignalAt: number | undefined;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      const now = Date.now();
      // `npm start` forwards the Ctrl-C this process also got from the terminal: one press.
      if (firstSignalAt === undefined || now - firstSignalAt < SAME_PRESS_MS) {
        firstSignalAt ??= now;
        void launcher.stop(0, signal);
        return;
      }
      // Pressed again: do not wait for the apps any longer.
      say(`${signal} again: killing the apps`);
      launcher.signalApps('SIGKILL');
      process.exit(1);
    });
  }
  // Whatever ends this process, no app outlives it (after a clean stop none is left).
  process.on('exit', () => launcher.signalApps('SIGTERM'));

  launcher.start().catch((error: unknown) => {
    if (launcher.isStopping) return; // stop() interrupted start-up; it reports the outcome
    say(`start-up failed: ${error instanceof Error ? error.message : String(error)}`);
    void launcher.stop(1, 'start-up failed');
  });
  void launcher.stopped.then((code) => process.exit(code));
}

main();
