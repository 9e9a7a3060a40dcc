import type { Logger } from '../shared/infra/logger';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';

/**
 * Keeps the highest partition count any process started with and answers the one it held
 * before (nil the first time). One key: cluster-safe.
 */
const RECORD = `local was = tonumber(redis.call('GET', KEYS[1]))
if not was or was < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return was`;

/** Where the processes record their VISIT_STREAM_PARTITIONS. */
export function visitPartitionsKey(keys: RedisKeys): string {
  return keys.key('visits', 'partitions');
}

/**
 * Records this process's VISIT_STREAM_PARTITIONS and compares it with the highest any process
 * recorded before; answers that highest count. A difference is a configuration mistake with a
 * silent cost: a click queued on a partition no worker drains is never counted, and one link's
 * clicks go to two partitions. It is logged as an error (the operator has to set one number
 * everywhere); the worker drains the higher count meanwhile, so no partition is left behind.
 */
export async function recordVisitPartitions(
  deps: { redis: RedisClient; keys: RedisKeys; logger: Logger },
  partitions: number,
  role: 'api' | 'worker',
): Promise<number> {
  const key = visitPartitionsKey(deps.keys);
  const was = (await deps.redis.eval(RECORD, 1, key, String(partitions))) as number | null;
  if (was === null || was === partitions) return partitions;
  deps.logger.error(
    { partitions, recorded: was, key },
    `VISIT_STREAM_PARTITIONS is ${partitions} in this ${role} process but ${was} was recorded by another: ` +
      'set one number on every API and worker process' +
      (was > partitions
        ? ` (to lower it for good, drain the backlog, stop every process and delete ${key})`
        : ''),
  );
  return Math.max(was, partitions);
}

/**
 * The worker's side: records its count now, then reads the recorded one every `everyMs` and
 * widens the drainer to it, so an API process started later with more partitions is drained
 * too. Answers the stop function.
 */
export function keepVisitPartitions(
  deps: { redis: RedisClient; keys: RedisKeys; logger: Logger },
  drainer: { readonly partitions: number; widen(partitions: number): void },
  everyMs = 30_000,
): () => void {
  const configured = drainer.partitions;
  let warned = configured;
  const check = async (first: boolean) => {
    try {
      const recorded = first
        ? await recordVisitPartitions(deps, configured, 'worker')
        : Number(await deps.redis.get(visitPartitionsKey(deps.keys)));
      if (recorded > drainer.partitions) {
        if (!first && recorded > warned) {
          deps.logger.error(
            { partitions: configured, recorded },
            `VISIT_STREAM_PARTITIONS ${recorded} was recorded by another process since this worker started with ${configured}: draining ${recorded}; set one number on every process`,
          );
        }
        drainer.widen(recorded);
      }
      warned = Math.max(warned, recorded);
    } catch (err) {
      deps.logger.warn({ err: (err as Error).message }, 'VISIT_STREAM_PARTITIONS not compared');
    }
  };
  void check(true);
  const timer = setInterval(() => void check(false), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
