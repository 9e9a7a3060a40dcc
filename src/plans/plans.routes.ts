import { Router } from 'express';
import { requireAdmin } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import { sendData, sendMessage } from '../shared/http/responses';
import { validate } from '../shared/http/validate';
import { setUserPlan } from '../users/users.service';
import { presentPlan } from './plans.presenter';
import {
  subscribeParams,
  subscriptionEnd,
  subscriptionSchema,
  type SubscribeParams,
  type Subscription,
} from './plans.schemas';
import { findPlan } from './plans.service';

/** GemPixel's admin plan routes; plans themselves come from the PLANS setting. */
export function plansRouter(deps: AppDeps): Router {
  const { plans, planRateLimits, defaultRateLimit } = deps.config;
  const router = Router();

  router.get('/plans', requireAdmin, (_req, res) => {
    const data = plans.map((plan) =>
      presentPlan(plan, planRateLimits[plan.name] ?? defaultRateLimit),
    );
    sendData(res, { data });
  });

  router.put(
    '/plan/:planid/user/:userid',
    requireAdmin,
    validate({ params: subscribeParams, body: subscriptionSchema }),
    async (req, res) => {
      const { planid, userid } = req.params as unknown as SubscribeParams;
      const plan = findPlan(plans, planid);
      const expires = subscriptionEnd(req.body as Subscription, new Date());
      await setUserPlan(userid, plan.name, expires);
      sendMessage(res, `User has been subscribed to the ${plan.name} plan.`);
    },
  );

  return router;
}
