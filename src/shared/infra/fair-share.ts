import { PRIORITY_LIMIT, type Job, type Worker } from 'bullmq';
import type { RedisClient } from './redis-connections';
import type { RedisKeys } from './redis-keys';

/**
 * Per-user fairness on an open-source BullMQ queue (issue 29, M7). BullMQ Pro's groups are not
 * open source; job priorities stand in for them, and nothing is ever put back or delayed.
 *
 * BullMQ takes the lowest priority first and, within one priority, the job queued first (the
 * score is priority * 2^32 plus a queue-wide counter: one ZADD to queue, one ZPOPMIN to take, both
 * O(log n)). Each job is queued with its user's next turn as its priority, counted from a clock:
 * the highest priority a worker has taken so far. A user with nothing outstanding gets clock + 1,
 * then clock + 2, ...; a user with jobs outstanding continues after its last turn. This is
 * start-time fair queueing: the waiting jobs are served round-robin by user whatever order they
 * came in, a newcomer joins the current round (not the first one, ahead of a flood already half
 * served), and a flood only pushes back its own user's jobs.
 *
 * Why that bounds another user's wait: a user's turns are distinct and each is above the clock
 * when given, and the clock only rises; jobs are taken lowest first, so apart from retries no
 * job waits with a turn at or below the clock. A job given turn t thus has ahead of it at most
 * t - clock jobs of each other user; a user's first job, turn clock + 1, at most one of each.
 * With `u` users queuing, `c` worker slots and jobs that end within `T` (the delivery or logo
 * time-out), it starts within about T * (1 + (u - 1) / c): a slot frees within T, and what is
 * ahead is one job per other user. No per-user cap on running jobs is needed for this bound; one
 * would only shorten the first T for a user who finds a lone flooder holding every slot, and
 * BullMQ can enforce such a cap only by putting jobs back, the churn this replaces (two flooders
 * both bounced through 1 s delays).
 *
 * Turns grow with the rounds served. The clock starts again at zero whenever no user has a job
 * outstanding; in a queue that never drains for 2^21 rounds, new jobs get BullMQ's highest
 * priority and are served first come, first served until it drains.
 *
 * Outstanding jobs are a sorted set of job ids per user (the same id queued twice counts once,
 * a release twice is harmless). An id is released when the worker completes its job or fails it
 * for good (a stalled job's deferred failure included). A sweep drops any id whose job was
 * removed, failed for good or vanished in a crash between its end and its release, so a count
 * cannot outlive one sweep interval; meanwhile it only keeps its own user's turns going up.
 *
 * The keys share BullMQ's hash tag (see `bullPrefix`): the sweep's script reads the queue's own
 * job hashes and failed/completed sets beside them, which a cluster allows in one slot only.
 */
export interface FairShare {
  /**
   * Counts the user's new jobs by id (an id already counted counts once) and answers their
   * priorities (the user's next turns), one per id, in order.
   */
  priorities(userId: number, jobIds: string[]): Promise<number[]>;
  /** The job is no longer outstanding. Idempotent. */
  release(userId: number, jobId: string): Promise<void>;
  /** How many outstanding jobs are counted for the user. */
  outstanding(userId: number): Promise<number>;
  /** Drops counted ids whose jobs are gone or failed for good; answers how many it dropped. */
  sweep(): Promise<number>;
  /**
   * Worker side: moves the clock with each job the worker takes, releases each it completes or
   * fails for good, and sweeps every `sweepIntervalMs`. Answers a function that stops the sweeps.
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

/**
 * KEYS: user's ids, users, last turns, clock. ARGV: now, userId, limit, ids... Answers one
 * priority per id.
 */
const PRIORITIES = `
local clock = tonumber(redis.call('GET', KEYS[4]) or '0')
local turn = clock
if redis.call('ZCARD', KEYS[1]) > 0 then
  turn = math.max(clock, tonumber(redis.call('HGET', KEYS[3], ARGV[2]) or '0'))
end
local limit = tonumber(ARGV[3])
local priorities = {}
for i = 4, #ARGV do
  if redis.call('ZADD', KEYS[1], 'NX', ARGV[1], ARGV[i]) == 1 then turn = turn + 1 end
  priorities[#priorities + 1] = math.min(math.max(turn, 1), limit)
end
redis.call('HSET', KEYS[3], ARGV[2], turn)
redis.call('SADD', KEYS[2], ARGV[2])
return priorities`;

/** When a user has nothing outstanding left; when no user has, the clock starts again. */
const FORGET_IF_DONE = `
local function forgetIfDone(userIds, users, lastTurns, clock, userId)
  if redis.call('ZCARD', userIds) > 0 then return end
  redis.call('SREM', users, userId)
  redis.call('HDEL', lastTurns, userId)
  if redis.call('SCARD', users) == 0 then redis.call('DEL', clock) end
end`;

/** KEYS: user's ids, users, last turns, clock. ARGV: userId, jobId. */
const RELEASE = `${FORGET_IF_DONE}
redis.call('ZREM', KEYS[1], ARGV[2])
forgetIfDone(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1])
return 0`;

/** KEYS: clock. ARGV: the priority of a job just taken. */
const ADVANCE = `
local taken = tonumber(ARGV[1])
if taken > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], taken) end
return 0`;

/**
 * KEYS: user's ids, users, last turns, clock, the queue's failed set, its completed set. ARGV:
 * userId, job key prefix, counted before (ms), offset, count. Answers {ids checked, dropped}.
 */
const SWEEP = `${FORGET_IF_DONE}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[3], 'LIMIT', ARGV[4], ARGV[5])
local dropped = 0
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[2] .. id) == 0 or redis.call('ZSCORE', KEYS[5], id)
      or redis.call('ZSCORE', KEYS[6], id) then
    redis.call('ZREM', KEYS[1], id)
    dropped = dropped + 1
  end
end
forgetIfDone(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1])
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
  const lastKey = keys.slotted('bull', 'fair', queue, 'last');
  const clockKey = keys.slotted('bull', 'fair', queue, 'clock');
  /** The keys every script but ADVANCE starts with, for one user. */
  const userKeys = (userId: number) => [userKey(userId), usersKey, lastKey, clockKey];
  const queueKey = (suffix: string) => `${options.bullPrefix}:${queue}:${suffix}`;

  const release = async (userId: number, jobId: string) => {
    await redis.eval(RELEASE, 4, ...userKeys(userId), userId, jobId);
  };

  const sweepUser = async (userId: number, before: number) => {
    let offset = 0;
    let dropped = 0;
    for (;;) {
      const reply = await redis.eval(
        SWEEP,
        6,
        ...userKeys(userId),
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
    async priorities(userId, jobIds) {
      if (jobIds.length === 0) return [];
      const reply = await redis.eval(
        PRIORITIES,
        4,
        ...userKeys(userId),
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
      worker.on('active', (job) => {
        if (job.priority > 0) redis.eval(ADVANCE, 1, clockKey, job.priority).catch(() => undefined);
      });
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
