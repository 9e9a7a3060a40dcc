import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import type { RedisClient } from './redis-connections';
import type { RedisKeys } from './redis-keys';

/**
 * Per-user fairness on an open-source BullMQ queue (issue 29, M7). BullMQ Pro's groups are not
 * open source, so two standard pieces stand in for them:
 *
 * - Rank priorities: a user's n-th job still outstanding is queued with priority n (BullMQ takes
 *   lower numbers first). Every user's first job goes before anyone's second, and so on: the
 *   waiting list is served round-robin by user, whatever order the jobs arrived in. A flood of
 *   user A's jobs only pushes back A's own.
 * - A cap on each user's jobs in flight while other users have jobs outstanding: past it, a job
 *   picked up is put back (delayed by `retryDelayMs`, its attempts untouched) instead of holding
 *   a worker slot. One user's black hole or slow logo host can then hold at most `maxInFlight` of
 *   the slots; the others stay free for everyone else. A user alone keeps every slot: the cap
 *   only makes room for someone waiting (a batch of 60 codes ran at a sixteenth of its rate when
 *   the cap held with no one else there).
 *
 * Both are counters in Redis (each key used alone, so a cluster is fine), shared by every
 * producer and worker. They expire after a quiet hour, so a count left behind by a crash costs
 * its user a lower priority for an hour at most.
 */
export interface FairShare {
  /** Counts `count` new jobs of the user and answers their priorities (their ranks). */
  ranks(userId: number, count: number): Promise<number[]>;
  /**
   * Wraps a processor: over the user's in-flight cap the job is put back; once the job is done
   * for good (succeeded, or failed without a retry left) its rank is released.
   */
  wrap<T, R>(
    userOf: (job: Job<T>) => number | undefined,
    processor: (job: Job<T>, token?: string) => Promise<R>,
  ): (job: Job<T>, token?: string) => Promise<R>;
}

/** BullMQ's largest priority. */
const MAX_PRIORITY = 2_097_152;
const QUIET_TTL_S = 3600;

export function fairShare(options: {
  redis: RedisClient;
  keys: RedisKeys;
  queue: string;
  maxInFlight: number;
  retryDelayMs?: number;
}): FairShare {
  const { redis, keys, queue, maxInFlight } = options;
  const retryDelayMs = options.retryDelayMs ?? 1000;
  const rankKey = (userId: number) => keys.key('fair', queue, 'rank', userId);
  const activeKey = (userId: number) => keys.key('fair', queue, 'active', userId);
  /** Every user's outstanding jobs together: the others' are this less the user's rank. */
  const totalKey = keys.key('fair', queue, 'outstanding');

  /** Decrements without going below zero (a counter that expired meanwhile stays at zero). */
  const decrement = async (key: string) => {
    const left = await redis.decr(key);
    if (left < 0) await redis.set(key, '0', 'EX', QUIET_TTL_S);
  };

  /** Whether users other than this one have jobs queued or running. */
  const othersWaiting = async (userId: number) => {
    const [mine, total] = await Promise.all([redis.get(rankKey(userId)), redis.get(totalKey)]);
    return Number(total ?? 0) - Number(mine ?? 0) > 0;
  };
  const release = async (userId: number) => {
    await decrement(rankKey(userId));
    await decrement(totalKey);
  };

  const finalFailure = (job: Job, err: unknown) =>
    err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);

  return {
    async ranks(userId, count) {
      const reply = await redis
        .multi()
        .incrby(rankKey(userId), count)
        .expire(rankKey(userId), QUIET_TTL_S)
        .exec();
      await redis.multi().incrby(totalKey, count).expire(totalKey, QUIET_TTL_S).exec();
      const last = Number(reply?.[0]?.[1] ?? count);
      return Array.from({ length: count }, (_, i) =>
        Math.min(MAX_PRIORITY, Math.max(1, last - count + 1 + i)),
      );
    },
    wrap(userOf, processor) {
      return async (job, token) => {
        const userId = userOf(job);
        if (userId === undefined) return processor(job, token);
        const reply = await redis
          .multi()
          .incr(activeKey(userId))
          .expire(activeKey(userId), QUIET_TTL_S)
          .exec();
        const active = Number(reply?.[0]?.[1] ?? 1);
        if (active > maxInFlight && (await othersWaiting(userId))) {
          await decrement(activeKey(userId));
          await job.moveToDelayed(Date.now() + retryDelayMs, token);
          throw new DelayedError();
        }
        try {
          const result = await processor(job, token);
          await release(userId);
          return result;
        } catch (err) {
          if (finalFailure(job, err)) await release(userId);
          throw err;
        } finally {
          await decrement(activeKey(userId));
        }
      };
    },
  };
}
