import { Router } from 'express';
import { requireAdmin } from '../auth/auth.middleware';
import type { AppDeps } from '../deps';
import Joi from 'joi';
import { endpoint } from '../shared/http/endpoint';
import { dataResponse, messageResponse, sendData, sendMessage } from '../shared/http/responses';
import { membershipCacheFor } from '../team/acting-account';
import { apiKeyCacheFor } from '../users/api-key-cache';
import { setUserPlan } from '../users/users.service';
import { planJson, presentPlan } from './plans.presenter';
import {
  subscribeParams,
  subscriptionEnd,
  subscriptionSchema,
  type SubscribeParams,
  type Subscription,
} from './plans.schemas';
import { findPlan } from './plans.service';

const tag = 'Admin';

const api = {
  list: endpoint({
    tag,
    scope: '*',
    summary: 'The plans (administrators only)',
    responses: { 200: dataResponse({ data: Joi.array().items(planJson) }, 'Every plan') },
    errors: [403],
  }),
  subscribe: endpoint({
    tag,
    scope: '*',
    summary: 'Put a user on a plan (administrators only)',
    params: subscribeParams,
    body: subscriptionSchema,
    responses: { 200: messageResponse('Subscribed') },
    errors: [403],
  }),
};

/** GemPixel's admin plan routes; plans themselves come from the PLANS setting. */
export function plansRouter(deps: AppDeps): Router {
  const { plans, planRateLimits, defaultRateLimit } = deps.config;
  const caches = { apiKeys: apiKeyCacheFor(deps), memberships: membershipCacheFor(deps) };
  const router = Router();

  router.get('/plans', requireAdmin, api.list, (_req, res) => {
    const data = plans.map((plan) =>
      presentPlan(plan, planRateLimits[plan.name] ?? defaultRateLimit),
    );
    sendData(res, { data });
  });

  router.put('/plan/:planid/user/:userid', requireAdmin, api.subscribe, async (req, res) => {
    const { planid, userid } = req.params as unknown as SubscribeParams;
    const plan = findPlan(plans, planid);
    const expires = subscriptionEnd(req.body as Subscription, new Date());
    await setUserPlan(userid, plan.name, expires, caches);
    sendMessage(res, `User has been subscribed to the ${plan.name} plan.`);
  });

  return router;
}
