/**
 * `rollout status --watch`: reads the endpoint's latest rollout every `intervalMs` until it ends,
 * handing each view that moved (state, phase, step, or a new decision) to `onChange`, the first
 * one always. Ends with the final view: COMPLETED, ROLLED_BACK or ABORTED. Pure over its
 * injected read and sleep, so a fake clock tests it.
 */
import { ACTIVE_ROLLOUT_STATES, type RolloutView } from '@modelgate/contracts';

export interface RolloutWatch {
  read(): Promise<RolloutView>;
  sleep(ms: number): Promise<void>;
  onChange(view: RolloutView): void;
  intervalMs: number;
}

/** What a watcher compares between reads: a change of any of these is worth printing. */
function progressKey(view: RolloutView): string {
  return [view.id, view.state, view.phase, view.stepIndex, view.percent, view.history.length].join('|');
}

/** Watches until the rollout is no longer PENDING, RUNNING or PAUSED; resolves with the final view. */
export async function watchRollout(watch: RolloutWatch): Promise<RolloutView> {
  let last: string | undefined;
  for (;;) {
    const view = await watch.read();
    const key = progressKey(view);
    if (key !== last) watch.onChange(view);
    last = key;
    if (!ACTIVE_ROLLOUT_STATES.includes(view.state)) return view;
    await watch.sleep(watch.intervalMs);
  }
}
