import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestHandler } from 'express';
import type { RedisClient } from '../shared/infra/redis-connections';
import { currentUser } from '../auth/auth.middleware';
import { serviceUnavailable } from '../shared/errors/app-error';
import type { RedisKeys } from '../shared/infra/redis-keys';
import type { Plan, PlanLimit } from './plans.config';
import { assertWithinPlan, limitOf } from './plans.service';

/** Anything that counts one kind of record by owner, such as a mongoose model. */
interface OwnedCounter {
  countDocuments(filter: { userId: number }): PromiseLike<number>;
}

export interface PlanLimitDeps {
  config: { plans: readonly Plan[] };
  redis: RedisClient;
  keys: RedisKeys;
}

/** Longest a create may hold its user's slot: well past any create, short enough to recover. */
const HOLD_MS = 15_000;
const WAIT_MS = 10_000;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/**
 * Guards a create route with the caller's plan limit on the records `model` holds. Counting and
 * inserting are two steps, so a user with a finite limit creates one record of a kind at a time
 * (a Redis lock shared by every API process, held until the answer is sent): parallel creates
 * can no longer all pass the count before any is stored (issue 29, L6). Unlimited users take no
 * lock.
 */
export function withinPlan(
  deps: PlanLimitDeps,
  limit: PlanLimit,
  model: OwnedCounter,
): RequestHandler {
  const { plans } = deps.config;
  return async (req, res, next) => {
    const user = currentUser(req);
    const count = (userId: number) => Promise.resolve(model.countDocuments({ userId }));
    if (limitOf(plans, user, limit) === undefined) return next();
    const key = deps.keys.key('plans', 'create', limit, user.id);
    const token = randomBytes(12).toString('base64url');
    const deadline = Date.now() + WAIT_MS;
    while ((await deps.redis.set(key, token, 'PX', HOLD_MS, 'NX')) === null) {
      if (Date.now() > deadline) throw serviceUnavailable('Another create is still running');
      await sleep(20);
    }
    const release = () => void deps.redis.eval(RELEASE, 1, key, token).catch(() => undefined);
    try {
      await assertWithinPlan(plans, user, limit, count);
    } catch (err) {
      release();
      throw err;
    }
    res.on('close', release);
    next();
  };
}
