/**
 * One visit applier as its own process (test/reliability/visit-apply-races.test.ts): connects,
 * waits for the agreed start time, then applies `batches` batches of `perBatch` visits of one
 * link, each batch as the drainer would, and prints `applied <n>`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { connectMongo, disconnectMongo } from '../../src/shared/infra/mongo';
import { standaloneRedis } from '../../src/shared/infra/redis-connections';
import { RedisKeys } from '../../src/shared/infra/redis-keys';
import { applyVisits, BatchClock } from '../../src/visits/visit-apply';

async function main(): Promise<void> {
  const [uri, dbName, prefix, target, batches, perBatch, startAt] = process.argv.slice(2);
  await connectMongo(uri as string, dbName);
  const redis = standaloneRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'blocking');
  const keys = new RedisKeys(prefix as string);
  const clock = new BatchClock();
  await sleep(Math.max(0, Number(startAt) - Date.now()));
  let applied = 0;
  for (let b = 0; b < Number(batches); b += 1) {
    const batch = Array.from({ length: Number(perBatch) }, (_, i) => ({
      entryId: `${process.pid}-${b}-${i}`,
      visit: {
        kind: 'link' as const,
        targetId: Number(target),
        at: Date.now(),
        visitor: `v${process.pid}-${i}`,
        country: 'Germany',
        userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
        referrer: '',
      },
    }));
    applied += await applyVisits(batch, redis, keys, { clock });
  }
  process.stdout.write(`applied ${applied}\n`);
  redis.disconnect();
  await disconnectMongo();
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
