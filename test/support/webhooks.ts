import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import express from 'express';
import { listen, type RunningServer } from '../../src/server';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Statuses to answer, in order; 200 once they run out. */
  answers: number[];
  close(): Promise<void>;
}

/** A webhook receiver on 127.0.0.1 that records every request. */
export async function startReceiver(answers: number[] = []): Promise<Receiver> {
  const received: Received[] = [];
  const receiver = { received, answers: [...answers] } as Omit<Receiver, 'url' | 'close'>;
  const app = express();
  app.post('/hooks', express.text({ type: '*/*' }), (req, res) => {
    received.push({ headers: req.headers, body: req.body as string });
    res.status(receiver.answers.shift() ?? 200).send('ok');
  });
  const server: RunningServer = await listen(app, 0, '127.0.0.1');
  return {
    ...receiver,
    url: `http://127.0.0.1:${server.port}/hooks`,
    close: () => server.close(),
  };
}

/** What a receiver does: recompute the HMAC of "t.body" and compare in constant time. */
export function verifySignature(header: string | undefined, body: string, secret: string): number {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '');
  if (!match) throw new Error(`malformed signature header: ${header}`);
  const [, t, v1] = match as unknown as [string, string, string];
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest();
  if (!timingSafeEqual(expected, Buffer.from(v1, 'hex'))) throw new Error('signature mismatch');
  return Number(t);
}
