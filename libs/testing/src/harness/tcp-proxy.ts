import { type Server, type Socket, connect, createServer } from 'node:net';

/** A TCP proxy in front of a real server, for outage tests: cut it and the server is gone. */
export interface TcpProxy {
  /** The port it listens on (127.0.0.1). */
  port: number;
  /** Drops every open connection and refuses (resets) new ones until `restore`. */
  cut(): void;
  /** Forwards again. */
  restore(): void;
  close(): Promise<void>;
}

/** Starts a proxy from a free port on 127.0.0.1 to `host:port`. */
export async function startTcpProxy(host: string, port: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let down = false;
  const server: Server = createServer((client) => {
    if (down) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(port, host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the proxy has no port');
  return {
    port: address.port,
    cut() {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore() {
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
