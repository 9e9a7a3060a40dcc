import Joi from 'joi';
import { dateTimeInput } from '../shared/http/date-input';
import { idSchema } from '../shared/http/id-params';

export const SUBSCRIPTION_TYPES = ['monthly', 'yearly', 'lifetime'] as const;
export type SubscriptionType = (typeof SUBSCRIPTION_TYPES)[number];

/** `:planid` is the plan's integer id or its name, as GemPixel clients may send either. */
export const subscribeParams = Joi.object({
  planid: Joi.string().max(32).required(),
  userid: idSchema.required(),
});

export interface SubscribeParams {
  planid: string;
  userid: number;
}

/** GemPixel's subscription body: the end date, or a type it follows from. */
export interface Subscription {
  type?: SubscriptionType;
  expiration?: Date;
}

export const subscriptionSchema = Joi.object<Subscription>({
  type: Joi.string()
    .lowercase()
    .valid(...SUBSCRIPTION_TYPES),
  expiration: dateTimeInput,
});

/** When a subscription ends: the given date, else one period from `now`; null never ends. */
export function subscriptionEnd(input: Subscription, now: Date): Date | null {
  if (input.expiration) return input.expiration;
  const end = new Date(now);
  if (input.type === 'monthly') end.setUTCMonth(end.getUTCMonth() + 1);
  else if (input.type === 'yearly') end.setUTCFullYear(end.getUTCFullYear() + 1);
  else return null;
  return end;
}
