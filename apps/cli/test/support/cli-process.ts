import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The CLI built by `npm run build`: tests run it as a real process, as a person would. */
export const CLI_MAIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** What one `modelgate` run printed and how it ended. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node dist/main.js ...args` against `registryUrl` with `token` (none when undefined),
 * asynchronously: a registry served from this same process must keep answering meanwhile.
 */
export function runModelgate(
  args: readonly string[],
  options: { registryUrl: string; token: string | undefined; timeoutMs?: number },
): Promise<CliRun> {
  // No contexts file of the machine running the tests.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    MODELGATE_REGISTRY: options.registryUrl,
    MODELGATE_CONFIG: '/nonexistent/modelgate-config.yaml',
  };
  delete env.MODELGATE_TOKEN;
  if (options.token !== undefined) env.MODELGATE_TOKEN = options.token;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 90_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
