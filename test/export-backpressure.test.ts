import http from 'node:http';
import { expect } from 'chai';
import express from 'express';
import { sendExport, type ExportRow } from '../src/exports/export-stream';
import { listen, type RunningServer } from '../src/server';

const ROWS = 100_000;
const PADDING = 'x'.repeat(500);

/** Resolves once `read()` has returned the same value several polls in a row. */
async function settled(read: () => number): Promise<number> {
  let last = -1;
  let same = 0;
  while (same < 5) {
    await new Promise((r) => setTimeout(r, 40));
    const now = read();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

describe('export streaming (backpressure)', () => {
  let server: RunningServer;
  let produced = 0;

  before(async () => {
    const app = express().get('/export', async (_req, res) => {
      async function* rows(): AsyncGenerator<ExportRow> {
        for (let i = 0; i < ROWS; i += 1) {
          produced += 1;
          yield { n: i, padding: PADDING };
        }
      }
      await sendExport(res, { format: 'csv', filename: 'rows', columns: ['n', 'padding'] }, rows());
    });
    server = await listen(app, 0, '127.0.0.1');
  });
  after(() => server.close());

  it('produces rows only as fast as a paused client reads, then delivers every one', async () => {
    const res = await new Promise<http.IncomingMessage>((resolve) =>
      http.get(`http://127.0.0.1:${server.port}/export`, resolve),
    );
    res.pause();
    // About 50 MB in all: far more than the socket buffers between server and client hold.
    const whilePaused = await settled(() => produced);
    expect(whilePaused).to.be.below(ROWS / 2);

    let lines = 0;
    res.on('data', (chunk: Buffer) => {
      for (const byte of chunk) if (byte === 10) lines += 1;
    });
    const ended = new Promise((resolve) => res.on('end', resolve));
    res.resume();
    await ended;
    expect(lines).to.equal(ROWS + 1);
    expect(produced).to.equal(ROWS);
  });
});
