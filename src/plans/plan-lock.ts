import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { serviceUnavailable } from '../shared/errors/app-error';
import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { UserRecord } from '../users/user.model';
import type { Plan, PlanLimit } from './plans.config';
import { limitOf } from './plans.service';

export interface PlanLockDeps {
  redis: RedisClient;
  keys: RedisKeys;
}

/** Longest a create may hold its user's slot: well past any create, short enough to recover. */
const HOLD_MS = 15_000;
const WAIT_MS = 10_000;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Takes the user's create slot for one kind of record (a Redis lock shared by every API and
 * worker process) and answers its release. Counting and inserting are two steps: whoever counts
 * against a plan's limit holds this slot until the records are stored, so parallel creates (API
 * requests, an import) can no longer all pass the count before any is stored (issue 29, L6).
 */
export async function holdPlanSlot(
  deps: PlanLockDeps,
  userId: number,
  limit: PlanLimit,
): Promise<() => void> {
  const key = deps.keys.key('plans', 'create', limit, userId);
  const token = randomBytes(12).toString('base64url');
  const deadline = Date.now() + WAIT_MS;
  while ((await deps.redis.set(key, token, 'PX', HOLD_MS, 'NX')) === null) {
    if (Date.now() > deadline) throw serviceUnavailable('Another create is still running');
    await sleep(20);
  }
  return () => void deps.redis.eval(RELEASE, 1, key, token).catch(() => undefined);
}

/** Runs `fn` (count, then store) holding the user's slot; users without that limit take none. */
export async function withPlanSlot<T>(
  deps: PlanLockDeps,
  plans: readonly Plan[],
  user: Pick<UserRecord, 'id' | 'status'>,
  limit: PlanLimit,
  fn: () => Promise<T>,
): Promise<T> {
  if (limitOf(plans, user, limit) === undefined) return fn();
  const release = await holdPlanSlot(deps, user.id, limit);
  try {
    return await fn();
  } finally {
    release();
  }
}
