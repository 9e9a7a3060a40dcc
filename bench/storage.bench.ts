/**
 * `npm run bench -- storage`: one account with many links (STORAGE_LINKS, default 20,000 on the
 * embedded engine; seed a million on a MongoDB with `npm run seed -- --links 1000000` and pass
 * STORAGE_USER), then each list query a request path sends on it: its median time over 5 runs and
 * the index MongoDB chose (`explain`; the embedded engine has none and says so).
 */
import mongoose from 'mongoose';
import '../src/app';
import { seedLinks } from '../src/cli/seed';
import { Link } from '../src/links/link.model';
import { searchFilter } from '../src/links/link-search';
import { connectMongo, disconnectMongo, ensureIndexes } from '../src/shared/infra/mongo';
import { startEmbeddedMongo } from '../src/shared/infra/embedded-mongo';

const RUNS = 5;

async function planOf(
  filter: Record<string, unknown>,
  sort: Record<string, 1 | -1>,
): Promise<string> {
  const db = mongoose.connection.db;
  if (!db) return 'n/a';
  try {
    const plan = await db.command({
      explain: { find: 'links', filter, sort, limit: 15 },
      verbosity: 'queryPlanner',
    });
    const text = JSON.stringify(plan.queryPlanner?.winningPlan ?? plan);
    const index = /"indexName":"([^"]+)"/.exec(text)?.[1];
    return text.includes('COLLSCAN') ? 'COLLSCAN' : `IXSCAN ${index ?? '?'}`;
  } catch (err) {
    return `no explain on this engine (${(err as Error).message})`;
  }
}

async function median(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const t = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(RUNS / 2)] as number;
}

async function main(): Promise<void> {
  const engine = process.env.MONGODB_URI ? undefined : await startEmbeddedMongo();
  await connectMongo(
    process.env.MONGODB_URI ?? (engine?.uri as string),
    `linkqr_bench_storage_${Date.now()}`,
  );
  try {
    await ensureIndexes();
    let userId = Number(process.env.STORAGE_USER);
    let count = Number(process.env.STORAGE_LINKS ?? 20_000);
    if (!process.env.STORAGE_USER) {
      userId = 1;
      const started = Date.now();
      await seedLinks(userId, count, (done) => {
        if (done % 5000 === 0) process.stderr.write(`  seeded ${done}\n`);
      });
      console.log(`seeded ${count} links in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    } else {
      count = await Link.countDocuments({ userId });
    }
    const byDate = { id: -1 as const };
    const byClicks = { clicks: -1 as const, id: -1 as const };
    const deepId =
      (
        await Link.find({ userId })
          .sort(byDate)
          .skip(Math.floor(count / 2))
          .limit(1)
          .lean()
      )[0]?.id ?? 0;
    const cases: Array<[string, Record<string, unknown>, Record<string, 1 | -1>, number]> = [
      ['list, newest first, page 1', { userId }, byDate, 0],
      ['list by clicks, page 1', { userId }, byClicks, 0],
      ['search "caf" (prefix)', { userId, ...searchFilter('caf') }, byDate, 0],
      ['deep page via after=<id> (middle)', { userId, id: { $lt: deepId } }, byDate, 0],
      ['deep page via page=1000 (skip 14,985)', { userId }, byDate, 14_985],
    ];
    console.log(`account: ${count} links; median of ${RUNS} runs each`);
    console.log('query | ms | plan');
    for (const [name, filter, sort, skip] of cases) {
      const ms = await median(() => Link.find(filter).sort(sort).skip(skip).limit(15).lean());
      console.log(`${name} | ${ms.toFixed(1)} | ${await planOf(filter, sort)}`);
    }
    const countMs = await median(() => Link.countDocuments({ userId }));
    console.log(`count of the account's links | ${countMs.toFixed(1)} | (index {userId, id})`);
  } finally {
    await disconnectMongo();
    await engine?.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
