import net from 'node:net';
import autocannon from 'autocannon';

/** What the service benches share: the load generator, a free port, and how figures print. */

export const CONNECTIONS = 10;
export const LOCATION = 'https://example.com/landing?utm_source=bench';
export const BROWSER =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const median = (xs: number[]) =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
export const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface Run {
  rps: number;
  p99: number;
  ok: number;
  bad: number;
}

/** Sends exactly `amount` requests (so every answer is seen), `CONNECTIONS` at a time. */
export async function load(
  url: string,
  amount: number,
  expected: number,
  headers: Record<string, string> = {},
): Promise<Run> {
  const started = performance.now();
  let last = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, connections: CONNECTIONS, amount, headers: { 'user-agent': BROWSER, ...headers } },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', () => {
      last = performance.now();
    });
  });
  // Timed to the last answer: autocannon notices the end of a run on its one-second tick.
  const seconds = (last - started) / 1000;
  const ok = result.statusCodeStats?.[`${expected}`]?.count ?? 0;
  return { rps: ok / seconds, p99: result.latency.p99, ok, bad: amount - ok + result.errors };
}
