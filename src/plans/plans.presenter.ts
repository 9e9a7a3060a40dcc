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
