// Shared by the CLI's unit specs: under test/, so it is neither built nor image code.
import { Writable } from 'node:stream';
import { afterEach, beforeEach, vi } from 'vitest';
import { runCli } from '../../src/program.js';

/** What one in-process run printed and its exit code. */
export interface InProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process against captured streams. */
export async function run(...argv: string[]): Promise<InProcessRun> {
  let stdout = '';
  let stderr = '';
  const sink = (append: (text: string) => void): Writable =>
    new Writable({
      write(chunk: Buffer | string, _encoding, done) {
        append(chunk.toString());
        done();
      },
    });
  const code = await runCli(argv, {
    stdout: sink((text) => (stdout += text)),
    stderr: sink((text) => (stderr += text)),
  });
  return { code, stdout, stderr };
}

/** A registry answer with a JSON body. */
export function answer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/**
 * Stubs fetch and the CLI's registry settings (http://registry.test:8081, token `secret-token`)
 * around each test of the calling suite; returns the fetch mock.
 */
export function stubRegistry(): ReturnType<typeof vi.fn<typeof fetch>> {
  const fetchMock = vi.fn<typeof fetch>();
  beforeEach(() => {
    vi.stubGlobal('fetch', fetchMock);
    vi.stubEnv('MODELGATE_REGISTRY', 'http://registry.test:8081');
    vi.stubEnv('MODELGATE_TOKEN', 'secret-token');
    // No contexts file of the machine running the tests.
    vi.stubEnv('MODELGATE_CONFIG', '/nonexistent/modelgate-config.yaml');
  });
  afterEach(() => {
    fetchMock.mockReset();
    vi.unstubAllGlobals();
    vi.unstubAllEnvs();
  });
  return fetchMock;
}
