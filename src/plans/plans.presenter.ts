import Joi from 'joi';
import { record } from '../shared/http/responses';
import type { Plan } from './plans.config';

/**
 * A plan in GemPixel's `GET /api/plans` shape. GemPixel writes 0 for "unlimited"; linkqr has no
 * billing, so every plan is `free` and carries no prices.
 */
export function presentPlan(plan: Plan, rateLimit: number) {
  return {
    id: plan.id,
    name: plan.name,
    free: true,
    limits: {
      links: plan.maxLinks ?? 0,
      qrcodes: plan.maxQrCodes ?? 0,
      domain: { enabled: plan.maxDomains !== 0, count: plan.maxDomains ?? 0 },
      ratelimit: rateLimit,
    },
  };
}

const limit = Joi.number().integer().min(0).description('0: unlimited');

export const planJson = record({
  id: Joi.number().integer().min(1),
  name: Joi.string().example('pro'),
  free: Joi.boolean(),
  limits: record({
    links: limit,
    qrcodes: limit,
    domain: record({ enabled: Joi.boolean(), count: limit }),
    ratelimit: Joi.number().integer().min(1).description('requests per minute'),
  }),
});
