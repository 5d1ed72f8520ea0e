/**
 * Execution-provider selection, kept free of onnxruntime so its fallback rules are unit-tested.
 *
 * A ModelSpec lists providers in order of preference, e.g. `['tensorrt', 'cuda', 'cpu']`. We try
 * to open a session with the first one; when that fails (no GPU, a CPU-only onnxruntime build,
 * a missing CUDA library) we log why and try the next. Inside one attempt onnxruntime itself
 * still places the nodes a GPU provider cannot run on the later providers of that attempt and,
 * last, on its always-present CPU kernels. A list without `cpu` is strict: when every GPU
 * attempt fails the model fails with the reasons, rather than silently running on CPU.
 */
import { ErrorCode, ModelgateError } from '@modelgate/contracts';
import { type ProviderConfig } from '@modelgate/session-settings';

export type ExecutionProviderName = 'tensorrt' | 'cuda' | 'cpu';

/**
 * Device settings for the GPU providers (worker config, not per model). onnxruntime-node's binding
 * reads only `deviceId` from a CUDA or TensorRT provider object (js/node/src/session_options_helper.cc),
 * so that is all there is: engine cache, fp16 and memory limits cannot be passed from Node.
 */
export interface GpuSettings {
  /** CUDA device both GPU providers use. */
  deviceId: number;
}

/** One session-creation attempt: the provider it stands for and the list onnxruntime gets. */
export interface ProviderAttempt {
  provider: ExecutionProviderName;
  providers: ProviderConfig[];
}

/** The attempts, in order, for a model's preference list. */
export function planProviderAttempts(
  preferences: readonly ExecutionProviderName[],
  gpu: GpuSettings,
): ProviderAttempt[] {
  const gpuProviders = preferences.filter((p) => p !== 'cpu');
  return preferences.map((provider) => {
    if (provider === 'cpu') return { provider, providers: [{ name: 'cpu' }] };
    // A GPU attempt carries the GPU providers after it, so TensorRT can hand nodes to CUDA.
    const rest = gpuProviders.slice(gpuProviders.indexOf(provider));
    return { provider, providers: rest.map((name) => toProviderConfig(name, gpu)) };
  });
}

function toProviderConfig(name: 'tensorrt' | 'cuda', gpu: GpuSettings): ProviderConfig {
  return { name, deviceId: gpu.deviceId };
}

/** A warning about a provider that could not be used. */
export interface ProviderFallback {
  provider: ExecutionProviderName;
  reason: string;
}

/**
 * Opens a session with the first attempt that works. `open` creates the session for one attempt;
 * `onFallback` hears about each provider skipped and why.
 */
export async function openWithFallback<TSession>(
  attempts: readonly ProviderAttempt[],
  open: (attempt: ProviderAttempt) => Promise<TSession>,
  onFallback: (fallback: ProviderFallback) => void,
): Promise<{ session: TSession; provider: ExecutionProviderName }> {
  const failures: ProviderFallback[] = [];
  for (const attempt of attempts) {
    try {
      return { session: await open(attempt), provider: attempt.provider };
    } catch (error) {
      const failure = { provider: attempt.provider, reason: errorMessage(error) };
      failures.push(failure);
      onFallback(failure);
    }
  }
  const tried = failures.map((f) => `${f.provider}: ${f.reason}`).join('; ');
  const strict = !attempts.some((a) => a.provider === 'cpu');
  throw new ModelgateError(
    ErrorCode.MODEL_NOT_READY,
    strict
      ? `no execution provider could be created (${tried}); the list has no 'cpu', so CPU fallback is off — add 'cpu' to runtime.executionProviders to allow it`
      : `no execution provider could be created (${tried})`,
  );
}

/**
 * Instances per provider, in the order first opened: each instance falls back on its own, so a
 * model's copies may run on several (the first on CUDA, the next on the CPU once GPU memory ran out).
 */
export function countProviders(
  opened: readonly ExecutionProviderName[],
): ReadonlyMap<ExecutionProviderName, number> {
  const counts = new Map<ExecutionProviderName, number>();
  for (const provider of opened) counts.set(provider, (counts.get(provider) ?? 0) + 1);
  return counts;
}

/** The providers as a log line says them: `cpu`, or `cuda ×1, cpu ×1` when instances differ. */
export function describeProviders(counts: ReadonlyMap<ExecutionProviderName, number>): string {
  if (counts.size === 1) return [...counts.keys()][0]!;
  return [...counts].map(([provider, n]) => `${provider} ×${n}`).join(', ');
}

function errorMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
