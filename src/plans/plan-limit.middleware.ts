import type { RequestHandler } from 'express';
import { currentUser } from '../auth/auth.middleware';
import { holdPlanSlot, type PlanLockDeps } from './plan-lock';
import type { Plan, PlanLimit } from './plans.config';
import { assertWithinPlan, limitOf } from './plans.service';

/** Anything that counts one kind of record by owner, such as a mongoose model. */
interface OwnedCounter {
  countDocuments(filter: { userId: number }): PromiseLike<number>;
}

export interface PlanLimitDeps extends PlanLockDeps {
  config: { plans: readonly Plan[] };
}

/**
 * Guards a create route with the caller's plan limit on the records `model` holds. A user with a
 * finite limit creates one record of a kind at a time: the route holds the user's slot
 * (plan-lock.ts, which imports take too) until the answer is sent. Unlimited users take no lock.
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
    const release = await holdPlanSlot(deps, user.id, limit);
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
