import Joi from 'joi';

/** The plan name a user's `status` holds; the CLI's `--plan` accepts the same form. */
export const PLAN_NAME_PATTERN = /^[a-z0-9_-]{1,32}$/;

/** A plan from `PLANS`. An absent limit means unlimited. */
export interface Plan {
  readonly id: number;
  readonly name: string;
  readonly rateLimit?: number;
  readonly maxLinks?: number;
  readonly maxQrCodes?: number;
  readonly maxDomains?: number;
  /** Webhooks a user may keep; absent: DEFAULT_MAX_WEBHOOKS, even without PLANS. */
  readonly maxWebhooks?: number;
}

/** Each webhook holds delivery slots: a user keeps at most this many unless their plan says otherwise. */
export const DEFAULT_MAX_WEBHOOKS = 10;

/** The record counts a plan can cap. */
export type PlanLimit = 'maxLinks' | 'maxQrCodes' | 'maxDomains' | 'maxWebhooks';

const limit = Joi.number().integer().min(0).max(1_000_000_000);

const planList = Joi.array()
  .items(
    Joi.object<Plan>({
      id: Joi.number().integer().min(1).max(1_000_000).required(),
      name: Joi.string().pattern(PLAN_NAME_PATTERN).required().messages({
        'string.pattern.base': '{#label} must be 1-32 lower-case letters, digits, "_" or "-"',
      }),
      rateLimit: Joi.number().integer().min(1).max(1_000_000),
      maxLinks: limit,
      maxQrCodes: limit,
      maxDomains: limit,
      maxWebhooks: limit,
    }),
  )
  .unique('id')
  .unique('name');

export class PlansConfigError extends Error {
  override name = 'PlansConfigError';
}

/** Parses `PLANS`, a JSON list such as `[{"id":1,"name":"free","maxLinks":100}]`. */
export function parsePlans(raw: string | undefined): readonly Plan[] {
  if (raw === undefined || raw.trim() === '') return Object.freeze([]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new PlansConfigError(
      'PLANS must be a JSON list such as [{"id":1,"name":"free","maxLinks":100}]',
    );
  }
  const { error, value } = planList.validate(parsed, { abortEarly: true });
  if (error) {
    throw new PlansConfigError(
      `PLANS is invalid: ${error.message.replace(/"/g, '')} (expected [{id, name, rateLimit?, maxLinks?, maxQrCodes?, maxDomains?, maxWebhooks?}])`,
    );
  }
  return Object.freeze((value as Plan[]).map((plan) => Object.freeze(plan)));
}

/**
 * Requests per window by plan name: `PLAN_RATE_LIMITS` first, then each plan's own `rateLimit`,
 * which wins where both name the same plan (PLANS is the newer, fuller setting).
 */
export function mergeRateLimits(
  planRateLimits: Readonly<Record<string, number>>,
  plans: readonly Plan[],
): Record<string, number> {
  const merged: Record<string, number> = { ...planRateLimits };
  for (const plan of plans) if (plan.rateLimit !== undefined) merged[plan.name] = plan.rateLimit;
  return merged;
}
