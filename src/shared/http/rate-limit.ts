import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { clientKey } from './client-key';
import { scriptSafeSendCommand, type RedisClient } from '../infra/redis-connections';
import { RedisStore } from 'rate-limit-redis';
import { tooManyRequests } from '../errors/app-error';
import { BatchedRateStore } from './batched-rate-store';

export interface RateLimitOptions {
  redis: RedisClient;
  prefix: string;
  windowMs: number;
  planLimits: Readonly<Record<string, number>>;
  defaultLimit: number;
  anonymousLimit: number;
}

/**
 * rate-limit-redis loads its Lua script once; if Redis was down at that moment the rejected
 * promise would be reused forever. Reload it after a failure so the API recovers with Redis.
 */
export class RecoveringRedisStore extends RedisStore {
  override async increment(key: string) {
    try {
      return await super.increment(key);
    } catch (err) {
      this.incrementScriptSha = this.loadIncrementScript();
      this.incrementScriptSha.catch(() => undefined);
      throw err;
    }
  }
}

/** The rate-limit counter of a user's key, under the limiter's prefix (see RedisKeys.rateLimit). */
export function userRateLimitKey(userId: number): string {
  return `user:${userId}`;
}

function authenticatedUser(req: Request) {
  return req.auth && 'user' in req.auth ? req.auth.user : undefined;
}

/** The API limiter, and what the key lookup asks of it before it runs (L3). */
export type ApiRateLimiter = RequestHandler & {
  /**
   * Whether the request's address has spent its window on requests without a valid key: such an
   * address's unknown keys are refused without a MongoDB lookup (one Redis read instead).
   */
  anonymousSpent(req: Request): Promise<boolean>;
};

const anonymousKey = (req: Request) => `ip:${clientKey(req)}`;
const MAX_REMEMBERED_CAPS = 50_000;

/**
 * One fixed window per API key (per client IP when the request has no valid key), counted in
 * Redis so every API process shares the same count. Caps follow the user's plan.
 */
export function createRateLimiter(options: RateLimitOptions): ApiRateLimiter {
  const { redis, planLimits, defaultLimit, anonymousLimit } = options;
  const sendCommand = scriptSafeSendCommand(redis);
  const limitOf = (req: Request) => {
    const user = authenticatedUser(req);
    if (!user) return anonymousLimit;
    return planLimits[user.status] ?? defaultLimit;
  };
  // A key's cap as its last request saw it (a plan can change); unknown keys count in Redis.
  const caps = new Map<string, number>();
  const store = new BatchedRateStore({
    redis: new RecoveringRedisStore({ prefix: options.prefix, sendCommand }),
    sendCommand,
    prefix: options.prefix,
    cap: (key) => caps.get(key) ?? 0,
  });
  const limiter = rateLimit({
    windowMs: options.windowMs,
    limit: limitOf,
    keyGenerator: (req) => {
      const user = authenticatedUser(req);
      const key = user ? userRateLimitKey(user.id) : anonymousKey(req);
      if (caps.size >= MAX_REMEMBERED_CAPS && !caps.has(key)) caps.clear();
      caps.set(key, limitOf(req));
      return key;
    },
    legacyHeaders: true,
    standardHeaders: 'draft-8',
    identifier: (req) => (authenticatedUser(req) ? 'api-key' : 'anonymous'),
    passOnStoreError: false,
    store,
    handler: (req, _res, next, opts) => {
      const resetTime = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit
        ?.resetTime;
      const retryAfter = resetTime
        ? Math.ceil((resetTime.getTime() - Date.now()) / 1000)
        : Math.ceil(opts.windowMs / 1000);
      next(tooManyRequests(`Rate limit exceeded: try again in ${retryAfter} s`, retryAfter));
    },
  });
  const anonymousSpent = async (req: Request) => {
    const count = await store.get(anonymousKey(req));
    return (count?.totalHits ?? 0) >= anonymousLimit;
  };
  return Object.assign(limiter, { anonymousSpent });
}
