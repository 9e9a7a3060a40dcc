import http from 'node:http';
import express from 'express';
import QRCode from 'qrcode';

/**
 * The bare baselines of the per-core bench, in one process the bench pins to the service's core:
 * Express answering the same 302, Express sending the same JSON as linkqr's list, and
 * `qrcode.toBuffer` at 512 px on demand, on BASELINE_PORT; and what Node itself needs for the
 * same 302 (`node:http`, no framework) on BASELINE_HTTP_PORT. It serves until killed.
 */
const REDIRECT_TO = process.env.BASELINE_LOCATION ?? 'https://example.com/';
let listBody: unknown = { error: 0, data: {} };

const app = express();
app.disable('x-powered-by');
app.use(express.json({ limit: '1mb' }));
app.get('/baseline/ready', (_req, res) => res.send('ok'));
app.get('/:alias', (_req, res) => res.redirect(302, REDIRECT_TO));
app.get('/api/pixels', (_req, res) => res.json(listBody));
/** Sets the JSON the list baseline sends: the bench copies linkqr's own answer. */
app.put('/baseline/list', (req, res) => {
  listBody = req.body as unknown;
  res.status(204).end();
});
/** Renders `count` distinct codes one after another; answers the seconds it took. */
app.post('/baseline/qr', async (req, res) => {
  const { count, prefix } = req.body as { count: number; prefix: string };
  const started = process.hrtime.bigint();
  for (let i = 0; i < count; i += 1) {
    await QRCode.toBuffer(`${prefix}${i.toString(36).padStart(8, '0')}`, {
      type: 'png',
      width: 512,
    });
  }
  res.json({ seconds: Number(process.hrtime.bigint() - started) / 1e9 });
});

const server = http.createServer(app);
server.keepAliveTimeout = 5000;
server.listen(Number(process.env.BASELINE_PORT ?? 0), '127.0.0.1');
const bare = http.createServer((_req, res) => {
  res.writeHead(302, { location: REDIRECT_TO, 'content-length': '0' });
  res.end();
});
bare.keepAliveTimeout = 5000;
bare.listen(Number(process.env.BASELINE_HTTP_PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
