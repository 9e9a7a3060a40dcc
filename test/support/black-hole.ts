import { createServer, type Server, type Socket } from 'node:net';

/** A local server that accepts connections and never answers: every request to it hangs. */
export async function startBlackHole(): Promise<{
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The origin with a `/hook` path. */
  url: string;
  accepted: () => number;
  /** When each connection was accepted (Date.now()), in order. */
  acceptedAt: () => number[];
  /** The most connections open at once (a client gives up on one by closing it). */
  maxOpen: () => number;
  close(): Promise<void>;
}> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const acceptedAt: number[] = [];
  let maxOpen = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    acceptedAt.push(Date.now());
    sockets.add(socket);
    maxOpen = Math.max(maxOpen, sockets.size);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    url: `http://127.0.0.1:${port}/hook`,
    accepted: () => accepted,
    acceptedAt: () => [...acceptedAt],
    maxOpen: () => maxOpen,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
