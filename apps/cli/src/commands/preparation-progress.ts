import { type AdminClient, type ModelKey } from '@modelgate/admin-client';
import { type ModelStatus, type ModelView } from '@modelgate/contracts';
import { CliFailure } from '../cli-errors.js';
import { type Output } from '../output/output.js';

/** How often the model is polled while it prepares, in milliseconds. */
const POLL_INTERVAL_MS = 250;

/** How often the spinner moves, in milliseconds (only when stderr is a terminal). */
const SPINNER_INTERVAL_MS = 100;

const SPINNER_FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** Statuses preparation ends in. */
const FINAL_STATUSES: ReadonlySet<ModelStatus> = new Set(['READY', 'FAILED']);

/** Seconds with one decimal, e.g. `2.4s`. */
export function formatElapsed(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * Shows a model's preparation on stderr: one line per status (or reason) change with the time
 * since the upload was accepted; on a terminal, also a spinner line redrawn in place.
 */
class PreparationDisplay {
  #last = '';
  #current = '';
  #frame = 0;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly output: Output,
    private readonly startedAt: number,
  ) {
    if (output.interactive) {
      this.#timer = setInterval(() => this.#drawSpinner(), SPINNER_INTERVAL_MS);
    }
  }

  show(model: ModelView): void {
    const reason = model.statusReason === null ? '' : `  ${model.statusReason}`;
    const line = `${model.id}  ${model.status.padEnd(9)}`;
    this.#current = `${line}${reason}`;
    if (`${model.status}${reason}` === this.#last) return;
    this.#last = `${model.status}${reason}`;
    this.#clearSpinner();
    this.output.note(`${line}  ${formatElapsed(Date.now() - this.startedAt).padStart(6)}${reason}`);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#clearSpinner();
  }

  #drawSpinner(): void {
    this.#frame = (this.#frame + 1) % SPINNER_FRAMES.length;
    const elapsed = formatElapsed(Date.now() - this.startedAt);
    this.output.streams.stderr.write(`\r\x1b[2K${SPINNER_FRAMES[this.#frame]} ${this.#current}  ${elapsed}`);
  }

  #clearSpinner(): void {
    if (this.output.interactive) this.output.streams.stderr.write('\r\x1b[2K');
  }
}

/**
 * Polls the model until preparation ends (READY or FAILED) or `timeoutMs` passes, showing the
 * status transitions (PENDING → PREPARING → READY) with elapsed time on stderr. Resolves with
 * the final model; throws CliFailure when it does not end in time.
 */
export async function waitForPreparation(
  client: AdminClient,
  accepted: ModelView,
  output: Output,
  timeoutMs: number,
): Promise<ModelView> {
  const startedAt = Date.now();
  const key: ModelKey = { name: accepted.name, version: accepted.version };
  const display = new PreparationDisplay(output, startedAt);
  let model = accepted;
  try {
    display.show(model);
    while (!FINAL_STATUSES.has(model.status)) {
      if (Date.now() - startedAt > timeoutMs) {
        throw new CliFailure(
          `model ${model.id} is still ${model.status} after ${formatElapsed(timeoutMs)}; ` +
            `preparation goes on in the registry: follow it with 'modelgate model show ${model.id}'`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
      model = await client.getModel(key);
      display.show(model);
    }
  } finally {
    display.stop();
  }
  return model;
}
