import mongoose from 'mongoose';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';
import { connectMongo } from '../src/shared/infra/mongo';
(async () => {
  const e = await startEmbeddedMongo();
  await connectMongo(e.uri, 'probe');
  const t0 = Date.now();
  const log = (m: string) => console.log(Date.now() - t0, m, mongoose.connection.readyState);
  for (const ev of ['disconnected', 'connected', 'reconnected', 'error', 'close']) mongoose.connection.on(ev, () => log('ev ' + ev));
  const client = mongoose.connection.getClient();
  client.on('serverHeartbeatFailed', () => log('hbfail'));
  client.on('serverDescriptionChanged', (ev) => log('sdc ' + ev.newDescription.type));
  const col = mongoose.connection.db!.collection('x');
  await col.insertOne({ a: 1 });
  const pid = e.pid!;
  console.log('pid', pid);
  const { execSync } = await import('node:child_process');
  const p = pid; void execSync;
  log('kill ' + p);
  process.kill(Number(p), 'SIGKILL');
  for (let i = 0; i < 4; i++) {
    const s = Date.now();
    try { await col.findOne({}); log('ok'); } catch (err) { log(`fail ${(err as Error).name} after ${Date.now() - s}`); }
  }
  await new Promise((r) => setTimeout(r, 2000));
  log('end');
  process.exit(0);
})();
