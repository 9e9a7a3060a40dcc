import http from 'node:http';
import net from 'node:net';
import type { Express } from 'express';

export interface RunningServer {
  server: http.Server;
  port: number;
  /**
   * Stops accepting connections and lets every request already sent finish (see `listen`).
   * Resolves once the last connection is closed.
   */
  close(): Promise<void>;
}

export interface ListenOptions {
  /** How long a keep-alive connection idle at shutdown is kept, for a request already on its way. */
  idleGraceMs?: number;
}

interface Connection {
  active: number;
  idleSince: number;
}

/**
 * An HTTP server that shuts down without resetting anybody. Node's own `server.close()` closes
 * idle keep-alive connections at once, racing a client that is sending its next request on one:
 * that request is reset, and the client cannot tell whether it was done. Here, once closing:
 * every response says `Connection: close` (so the client opens no further request on it), a
 * connection is closed only when no request is on it, and an idle one is given `idleGraceMs` for
 * a request already in flight.
 */
export function listen(
  app: Express,
  port: number,
  host?: string,
  options: ListenOptions = {},
): Promise<RunningServer> {
  const idleGraceMs = options.idleGraceMs ?? 1000;
  const connections = new Map<net.Socket, Connection>();
  let closingSince: number | undefined;

  /** One listener for every response (`this` is the response): no closure per request. */
  function responseClosed(this: http.ServerResponse): void {
    const connection = connections.get(this.req.socket);
    if (!connection) return;
    connection.active -= 1;
    connection.idleSince = Date.now();
  }

  const server = http.createServer((req, res) => {
    const connection = connections.get(req.socket);
    if (connection) {
      connection.active += 1;
      res.on('close', responseClosed);
    }
    if (closingSince !== undefined) res.setHeader('Connection', 'close');
    app(req, res);
  });
  server.keepAliveTimeout = 5000;
  server.on('connection', (socket: net.Socket) => {
    connections.set(socket, { active: 0, idleSince: Date.now() });
    socket.once('close', () => connections.delete(socket));
  });

  function closeIdle(): void {
    const now = Date.now();
    for (const [socket, connection] of connections) {
      const idleFor = now - Math.max(connection.idleSince, closingSince ?? now);
      if (connection.active === 0 && idleFor >= idleGraceMs) socket.destroy();
    }
  }

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const address = server.address();
      const actualPort = typeof address === 'object' && address ? address.port : port;
      resolve({
        server,
        port: actualPort,
        close: () =>
          new Promise<void>((done, fail) => {
            closingSince ??= Date.now();
            const sweep = setInterval(closeIdle, 25);
            // net.Server's close stops accepting but, unlike http.Server's, leaves idle
            // keep-alive connections to the sweep above.
            net.Server.prototype.close.call(server, (err?: Error) => {
              clearInterval(sweep);
              if (err) fail(err);
              else done();
            });
            closeIdle();
          }),
      });
    });
  });
}
