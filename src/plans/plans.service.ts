import { forbidden, notFound } from '../shared/errors/app-error';
import type { UserRecord } from '../users/user.model';
import { DEFAULT_MAX_WEBHOOKS, type Plan, type PlanLimit } from './plans.config';

const LIMIT_LABELS: Record<PlanLimit, string> = {
  maxLinks: 'a link',
  maxQrCodes: 'a QR code',
  maxDomains: 'a branded domain',
  maxWebhooks: 'a webhook',
};

/** Limits that apply without PLANS too. */
const DEFAULT_LIMITS: Partial<Record<PlanLimit, number>> = { maxWebhooks: DEFAULT_MAX_WEBHOOKS };

/** The most records of a kind the user may keep; undefined: unlimited. */
export function limitOf(
  plans: readonly Plan[],
  user: Pick<UserRecord, 'status'>,
  limit: PlanLimit,
): number | undefined {
  return planOf(plans, user)?.[limit] ?? DEFAULT_LIMITS[limit];
}

/** The plan a user is on (their `status` names it), or undefined when PLANS has no such plan. */
export function planOf(plans: readonly Plan[], user: Pick<UserRecord, 'status'>): Plan | undefined {
  return plans.find((plan) => plan.name === user.status);
}

/** A plan named by GemPixel's `planid`: its integer id, or its name. */
export function findPlan(plans: readonly Plan[], planId: string | number): Plan {
  const plan = plans.find((p) => String(p.id) === String(planId) || p.name === String(planId));
  if (!plan) throw notFound(`Plan ${planId} not found`);
  return plan;
}

/** The refusal a create past the plan's limit gets (403 naming the limit). */
export function planLimitReached(
  plans: readonly Plan[],
  user: Pick<UserRecord, 'status'>,
  limit: PlanLimit,
) {
  const max = limitOf(plans, user, limit);
  return forbidden(
    `Plan limit reached: ${limit} (${max ?? 'none'}) on the ${user.status} plan; delete ${LIMIT_LABELS[limit]} or change plan`,
  );
}

/** How many more records the plan allows (Infinity when it has no such limit). */
export async function planRoom(
  plans: readonly Plan[],
  user: Pick<UserRecord, 'id' | 'status'>,
  limit: PlanLimit,
  count: (userId: number) => Promise<number>,
): Promise<number> {
  const max = limitOf(plans, user, limit);
  if (max === undefined) return Infinity;
  return Math.max(0, max - (await count(user.id)));
}

/**
 * Refuses a create that would take the user past their plan's limit (403 naming the limit).
 * `count` counts the user's own live records; a limit that is absent means unlimited.
 */
export async function assertWithinPlan(
  plans: readonly Plan[],
  user: Pick<UserRecord, 'id' | 'status'>,
  limit: PlanLimit,
  count: (userId: number) => Promise<number>,
): Promise<void> {
  const max = limitOf(plans, user, limit);
  if (max === undefined) return;
  const used = await count(user.id);
  if (used >= max) throw planLimitReached(plans, user, limit);
}
