import { PRIORITY_LIMIT, type Job, type Worker } from 'bullmq';
import type { RedisClient } from './redis-connections';
import type { RedisKeys } from './redis-keys';

/**
 * Per-user fairness on an open-source BullMQ queue (issue 29, M7). BullMQ Pro's groups are not
 * open source; job priorities stand in for them, and nothing is ever put back or delayed.
 *
 * A job is queued with its rank among its user's outstanding jobs (queued, running or waiting
 * for a retry) as its priority: a user's first outstanding job gets 1, the second 2, and so on.
 * BullMQ takes the lowest priority first and, within one priority, the job queued first (its
 * score is priority * 2^32 plus a queue-wide counter: one ZADD and one ZPOPMIN, O(log n)). So the
 * waiting jobs are served round-robin by user, whatever order they arrived in: everyone's first
 * job, then everyone's second.
 *
 * Why that bounds another user's wait: when a job is given rank r, its user has exactly r jobs
 * outstanding. So no user ever has more than r outstanding jobs of priority r or lower (the last
 * of r + 1 such jobs would have found r others and got r + 1). A job of rank r therefore has at
 * most r of each other user's jobs ahead of it, however many they queued. With `u` users queuing,
 * `c` worker slots and jobs that end within `T` (the delivery or logo time-out), a user's first
 * job starts within about T * (1 + (u - 1) / c): the slot it needs frees within T, and the jobs
 * ahead of it are at most one per other user. No per-user cap on running jobs is needed for this
 * bound; one would only shorten the first T for a user who finds a single flooder holding every
 * slot, and BullMQ can enforce such a cap only by putting jobs back, which is the churn this
 * replaces (with two flooders both bounced through 1 s delays).
 *
 * The count is a sorted set of the user's outstanding job ids (so the same id queued twice counts
 * once, and releasing twice is harmless), scored by when it was counted. A job's id is released
 * when the worker completes it or fails it for good (a stalled job's deferred failure included).
 * A sweep drops any id whose job was removed, failed for good or vanished in a crash between its
 * end and its release, so a count cannot leak for longer than one sweep interval. A leaked id
 * would only cost its user rank (a later turn), never another user's.
 *
 * A retry keeps its job's rank, and the bound above counts it: a retried job is still
 * outstanding. That is why the rank is counted from one and not from a clock (start-time fair
 * queueing, where a user's turns continue from the highest priority taken so far): there a
 * retry comes back with a turn the clock has passed while it waited out its backoff, and goes
 * before everyone's new jobs; a user whose targets time out, the very case this is for, then
 * cut ahead of others with every retry (tried: test/fair-share.test.ts, "a flood's retries").
 * The price of counting from one: a rank is fixed when its job is queued, so a newcomer's first
 * jobs go before a flood's later ones even if that flood has been served for a while. Only the
 * flooding user waits for that, for no more of each newcomer's jobs than the flood's lead (a
 * steady stream of newcomers can hold a flood back for as long as the stream lasts).
 *
 * The keys share BullMQ's hash tag (see `bullPrefix`): the sweep's script reads the queue's own
 * job hashes and failed/completed sets beside them, which a cluster allows in one slot only.
 */
export interface FairShare {
  /**
   * Counts the user's new jobs by id (an id already counted counts once) and answers their
   * priorities, one per id, in order.
   */
  ranks(userId: number, jobIds: string[]): Promise<number[]>;
  /** Releases a job's rank: it is no longer outstanding. Idempotent. */
  release(userId: number, jobId: string): Promise<void>;
  /** How many outstanding jobs are counted for the user. */
  outstanding(userId: number): Promise<number>;
  /** Drops counted ids whose jobs are gone or failed for good; answers how many it dropped. */
  sweep(): Promise<number>;
  /**
   * Worker side: releases each job the worker completes or fails for good, and sweeps every
   * `sweepIntervalMs`. Answers a function that stops the sweeps.
   */
  attach<T>(
    worker: Worker<T>,
    userOf: (job: Job<T>) => number | undefined,
    sweepIntervalMs?: number,
  ): () => void;
}

/** An id is counted just before its job is added: a sweep leaves it alone this long. */
const ADD_GRACE_MS = 60_000;
const SWEEP_BATCH = 500;

/** KEYS: user set, users. ARGV: now, userId, limit, ids... Answers one rank per id. */
const RANKS = `
local ranks = {}
local limit = tonumber(ARGV[3])
for i = 4, #ARGV do
  redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[i])
  ranks[#ranks + 1] = math.min(redis.call('ZCARD', KEYS[1]), limit)
end
redis.call('SADD', KEYS[2], ARGV[2])
return ranks`;

/** KEYS: user set, users. ARGV: userId, jobId. */
const RELEASE = `
redis.call('ZREM', KEYS[1], ARGV[2])
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return 0`;

/**
 * KEYS: user set, users, the queue's failed set, its completed set. ARGV: userId, job key prefix,
 * counted before (ms), offset, count. Answers {ids checked, ids dropped}.
 */
const SWEEP = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3], 'LIMIT', ARGV[4], ARGV[5])
local dropped = 0
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[2] .. id) == 0 or redis.call('ZSCORE', KEYS[3], id)
      or redis.call('ZSCORE', KEYS[4], id) then
    redis.call('ZREM', KEYS[1], id)
    dropped = dropped + 1
  end
end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], ARGV[1]) end
return {#ids, dropped}`;

export function fairShare(options: {
  redis: RedisClient;
  keys: RedisKeys;
  /** BullMQ's prefix for the queue (`bullPrefix`): the sweep reads the queue's own keys. */
  bullPrefix: string;
  queue: string;
  /** Ids counted within this long are kept even if their job is not there yet (being added). */
  addGraceMs?: number;
}): FairShare {
  const { redis, keys, queue } = options;
  const addGraceMs = options.addGraceMs ?? ADD_GRACE_MS;
  const userKey = (userId: number) => keys.slotted('bull', 'fair', queue, 'u', userId);
  const usersKey = keys.slotted('bull', 'fair', queue, 'users');
  const queueKey = (suffix: string) => `${options.bullPrefix}:${queue}:${suffix}`;

  const release = async (userId: number, jobId: string) => {
    await redis.eval(RELEASE, 2, userKey(userId), usersKey, userId, jobId);
  };

  const sweepUser = async (userId: number, before: number) => {
    let offset = 0;
    let dropped = 0;
    for (;;) {
      const reply = await redis.eval(
        SWEEP,
        4,
        userKey(userId),
        usersKey,
        queueKey('failed'),
        queueKey('completed'),
        userId,
        queueKey(''),
        before,
        offset,
        SWEEP_BATCH,
      );
      const [checked, gone] = (reply as [number, number]).map(Number);
      dropped += gone;
      if (checked < SWEEP_BATCH) return dropped;
      offset += checked - gone;
    }
  };

  const sweep = async () => {
    const before = Date.now() - addGraceMs;
    let dropped = 0;
    let cursor = '0';
    do {
      const [next, users] = await redis.sscan(usersKey, cursor, 'COUNT', 100);
      cursor = next;
      for (const user of users) dropped += await sweepUser(Number(user), before);
    } while (cursor !== '0');
    return dropped;
  };

  return {
    async ranks(userId, jobIds) {
      if (jobIds.length === 0) return [];
      const reply = await redis.eval(
        RANKS,
        2,
        userKey(userId),
        usersKey,
        Date.now(),
        userId,
        PRIORITY_LIMIT,
        ...jobIds,
      );
      return (reply as number[]).map(Number);
    },
    release,
    outstanding: (userId) => redis.zcard(userKey(userId)),
    sweep,
    attach(worker, userOf, sweepIntervalMs = 60_000) {
      const done = (job: Job | undefined) => {
        const userId = job && userOf(job);
        if (userId === undefined || job?.id === undefined) return;
        release(userId, job.id).catch(() => undefined);
      };
      worker.on('completed', (job) => done(job));
      // Only a final failure ends the job: a retried one is still outstanding (its finishedOn is
      // set by BullMQ only when no retry follows).
      worker.on('failed', (job) => {
        if (typeof job?.finishedOn === 'number') done(job);
      });
      const timer = setInterval(() => void sweep().catch(() => undefined), sweepIntervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
