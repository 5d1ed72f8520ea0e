import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** A running embedded Postgres. */
export interface EmbeddedPostgres {
  /** `postgres://` URL of the wire-protocol server on 127.0.0.1. */
  url: string;
  /** Stops accepting connections, then closes the database so its files are consistent. */
  stop(): Promise<void>;
}

/** Options of startEmbeddedPostgres. */
export interface EmbeddedPostgresOptions {
  /** Directory of the database files; created (initdb) on first use. */
  dataDir: string;
  /** Connections the socket server accepts at once. */
  maxConnections: number;
}

/**
 * PGlite (Postgres 18 compiled to WASM, in this process) served over the Postgres wire protocol
 * on a free port of 127.0.0.1, so the registry connects to it like to any Postgres (DESIGN §7).
 * PGlite is one backend: every query from every connection runs one after another, and an open
 * transaction holds the others back until it ends.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ dataDir: options.dataDir });
  const server = new PGLiteSocketServer({
    db,
    host: '127.0.0.1',
    port: 0,
    maxConnections: options.maxConnections,
  });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  let stopping: Promise<void> | undefined;
  return {
    url: `postgres://postgres@${server.getServerConn()}/postgres`,
    stop() {
      stopping ??= (async () => {
        await server.stop();
        await db.close();
      })();
      return stopping;
    },
  };
}
