import { expect } from 'chai';
import express from 'express';
import { listen } from '../src/server';
import { request } from './support/http';

describe('graceful server close', () => {
  it('finishes an in-flight request, then refuses new connections', async () => {
    const app = express();
    let started!: () => void;
    const inFlight = new Promise<void>((resolve) => (started = resolve));
    app.get('/slow', (_req, res) => {
      started();
      setTimeout(() => res.json({ done: true }), 300);
    });
    const server = await listen(app, 0, '127.0.0.1');
    const url = `http://127.0.0.1:${server.port}`;

    const pending = request(url, '/slow');
    await inFlight;
    const closed = server.close();
    const res = await pending;
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ done: true });
    await closed;
    let refused = false;
    await request(url, '/slow').catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
