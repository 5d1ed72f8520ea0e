import { createServer } from 'node:net';

/** A port the launcher is about to hand to an app, and the variable that sets it. */
export interface PlannedPort {
  variable: string;
  host: string;
  port: number;
}

/**
 * Fails, naming the variable to change, when one of the ports is taken: clearer than an app
 * dying with EADDRINUSE in the middle of start-up.
 */
export async function assertPortsFree(ports: readonly PlannedPort[]): Promise<void> {
  const taken: string[] = [];
  for (const planned of ports) {
    if (!(await isFree(planned.host, planned.port))) {
      taken.push(`port ${planned.port} on ${planned.host} is in use (set ${planned.variable} to another)`);
    }
  }
  if (taken.length > 0) throw new Error(taken.join('; '));
}

function isFree(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE' || error.code === 'EACCES') resolve(false);
      else reject(error);
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
