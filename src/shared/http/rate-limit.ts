import { createHash } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { rateLimit } from 'express-rate-limit';
import { LRUCache } from 'lru-cache';
import { clientKey } from './client-key';
import { scriptSafeSendCommand, type RedisClient } from '../infra/redis-connections';
import { RedisStore } from 'rate-limit-redis';
import { tooManyRequests } from '../errors/app-error';
import { BatchedRateStore, type HeldHit } from './batched-rate-store';
import type { UserRecord } from '../../users/user.model';

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
  /** The count of a request answered before the middleware could run (the hot lists). */
  inProcess: InProcessLimit;
};

/**
 * A user's hits counted at once, with no Redis round trip, while the store allows it: what a
 * request answered before Express (which cannot wait) needs. Any other hit goes to the middleware.
 */
export interface InProcessLimit {
  /** Whether the user's next hit can be counted in the process, within their cap. */
  fits(user: UserRecord): boolean;
  /**
   * Counts a hit `fits` allowed just before and answers the headers the middleware would have
   * set, as a flat `[name, value, ...]` list.
   */
  count(user: UserRecord): string[];
}

const anonymousKey = (req: Request) => `ip:${clientKey(req)}`;
const MAX_REMEMBERED_CAPS = 50_000;
/** `RateLimit`'s name for requests counted by key (`identifier` below). */
const KEY_IDENTIFIER = 'api-key';

/** express-rate-limit's draft-8 partition key: a pure function of the key, kept for busy keys. */
const partitionKeys = new LRUCache<string, string>({ max: 10_000 });
function partitionKeyOf(key: string): string {
  let partition = partitionKeys.get(key);
  if (partition === undefined) {
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 12);
    partition = Buffer.from(digest).toString('base64');
    partitionKeys.set(key, partition);
  }
  return partition;
}

/**
 * The headers express-rate-limit sets for a counted request with `legacyHeaders` and the
 * draft-8 standard headers (its own functions are not exported; a test holds the two equal).
 * `Date`, which its legacy headers set too, is left to Node, which writes the same value.
 */
function rateLimitHeaders(
  counted: HeldHit,
  limit: number,
  windowMs: number,
  key: string,
): string[] {
  const remaining = Math.max(limit - counted.totalHits, 0);
  const resetMs = counted.resetTime.getTime();
  const resetSeconds = Math.max(0, Math.ceil((resetMs - Date.now()) / 1000));
  const policy = `q=${limit}; w=${Math.ceil(windowMs / 1000)}; pk=:${partitionKeyOf(key)}:`;
  return [
    'X-RateLimit-Limit',
    String(limit),
    'X-RateLimit-Remaining',
    String(remaining),
    'X-RateLimit-Reset',
    String(Math.ceil(resetMs / 1000)),
    'RateLimit',
    `"${KEY_IDENTIFIER}"; r=${remaining}; t=${resetSeconds}`,
    'RateLimit-Policy',
    `"${KEY_IDENTIFIER}"; ${policy}`,
  ];
}

/**
 * One fixed window per API key (per client IP when the request has no valid key), counted in
 * Redis so every API process shares the same count. Caps follow the user's plan.
 */
export function createRateLimiter(options: RateLimitOptions): ApiRateLimiter {
  const { redis, planLimits, defaultLimit, anonymousLimit } = options;
  const sendCommand = scriptSafeSendCommand(redis);
  const userLimit = (user: UserRecord) => planLimits[user.status] ?? defaultLimit;
  const limitOf = (req: Request) => {
    const user = authenticatedUser(req);
    return user ? userLimit(user) : anonymousLimit;
  };
  // A key's cap as its last request saw it (a plan can change); unknown keys count in Redis.
  const caps = new Map<string, number>();
  const rememberCap = (key: string, cap: number) => {
    if (caps.size >= MAX_REMEMBERED_CAPS && !caps.has(key)) caps.clear();
    caps.set(key, cap);
  };
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
      rememberCap(key, limitOf(req));
      return key;
    },
    legacyHeaders: true,
    standardHeaders: 'draft-8',
    identifier: (req) => (authenticatedUser(req) ? KEY_IDENTIFIER : 'anonymous'),
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
  const inProcess: InProcessLimit = {
    fits: (user) => {
      const key = userRateLimitKey(user.id);
      rememberCap(key, userLimit(user));
      return store.fitsInProcess(key);
    },
    count: (user) => {
      const key = userRateLimitKey(user.id);
      return rateLimitHeaders(store.countInProcess(key), userLimit(user), options.windowMs, key);
    },
  };
  return Object.assign(limiter, { anonymousSpent, inProcess });
}
