import http from 'node:http';
import type { Express } from 'express';

export interface RunningServer {
  server: http.Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish, then closes idle keep-alive sockets. */
  close(): Promise<void>;
}

export function listen(app: Express, port: number, host?: string): Promise<RunningServer> {
  const server = http.createServer(app);
  server.keepAliveTimeout = 5000;
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
            // Keep-alive sockets of requests still running become idle only when those finish.
            const sweep = setInterval(() => server.closeIdleConnections(), 50);
            server.close((err) => {
              clearInterval(sweep);
              if (err) fail(err);
              else done();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
