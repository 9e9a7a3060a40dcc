import type { RequestHandler } from 'express';
import { currentUser } from '../auth/auth.middleware';
import type { Plan, PlanLimit } from './plans.config';
import { assertWithinPlan } from './plans.service';

/** Anything that counts one kind of record by owner, such as a mongoose model. */
interface OwnedCounter {
  countDocuments(filter: { userId: number }): PromiseLike<number>;
}

/** Guards a create route with the caller's plan limit on the records `model` holds. */
export function withinPlan(
  plans: readonly Plan[],
  limit: PlanLimit,
  model: OwnedCounter,
): RequestHandler {
  return async (req, _res, next) => {
    await assertWithinPlan(plans, currentUser(req), limit, (userId) =>
      Promise.resolve(model.countDocuments({ userId })),
    );
    next();
  };
}
