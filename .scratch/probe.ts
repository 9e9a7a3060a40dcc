import mongoose from 'mongoose';
import { startEmbeddedMongo } from '/work/wt/issue-11/src/shared/infra/embedded-mongo';
(async () => {
  const e = await startEmbeddedMongo();
  const c = await mongoose.connect(e.uri, { dbName: 'probe' });
  const col = c.connection.db!.collection('t');
  const cnt = c.connection.db!.collection('c');
  await cnt.createIndex({ target: 1, dim: 1, label: 1 }, { unique: true });
  const op = (s: number) => ({ updateOne: { filter: { _id: 'x' as unknown as never, 'g.d1': { $not: { $gte: s } } }, update: { $inc: { clicks: 1 }, $set: { 'g.d1': s } }, upsert: true } });
  const cop = (s: number) => ({ updateOne: { filter: { target: 'x', dim: 'os', label: 'L', 'g.d1': { $not: { $gte: s } } }, update: { $inc: { count: 1 }, $set: { 'g.d1': s } }, upsert: true } });
  for (const s of [1, 1, 2, 2, 2, 3]) {
    for (const [name, coll, o] of [['t', col, op], ['c', cnt, cop]] as const) {
      try { const r = await coll.bulkWrite([o(s)] as never, { ordered: false }); console.log(name, s, 'ok', r.upsertedCount, r.modifiedCount); }
      catch (err) { const e2 = err as { code?: number; writeErrors?: Array<{ code: number }>; name: string }; console.log(name, s, 'err', e2.name, e2.code, JSON.stringify(e2.writeErrors?.map((w) => w.code))); }
    }
  }
  console.log(await col.findOne({}), await cnt.findOne({}));
  await col.updateOne({ _id: 'x' as never }, { $unset: { 'g.d1': '' } });
  console.log(await col.findOne({}));
  await mongoose.disconnect(); await e.stop();
})();
