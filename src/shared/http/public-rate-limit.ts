import type { Request, RequestHandler } from 'express';
import { rateLimit, type IncrementResponse } from 'express-rate-limit';
import type { Logger } from 'pino';
import { tooManyRequests } from '../errors/app-error';
import { scriptSafeSendCommand, type RedisClient } from '../infra/redis-connections';
import { clientKey } from './client-key';
import { BatchedRateStore } from './batched-rate-store';
import { RecoveringRedisStore } from './rate-limit';

export interface PublicRateLimitOptions {
  redis: RedisClient;
  prefix: string;
  logger: Logger;
  /** Requests per window per client address; 0 turns the limit off. */
  limit: number;
  windowMs: number;
}

/** What the fast path learned from its count, for the normal routes it hands an over-cap click to. */
interface Counted {
  resetTime: Date | undefined;
}
const COUNTED = Symbol('publicRateLimitCounted');
type CountedRequest = Request & { [COUNTED]?: Counted };

/**
 * The per-address limit on every public route (issue 29, L3): Express middleware for the routes,
 * and `count` for the redirect fast path, which answers before Express routes anything. Both count
 * in one BatchedRateStore: mostly in the process, shared through rate-limit-redis's Redis key.
 */
export interface PublicRateLimit {
  middleware: RequestHandler;
  /**
   * Counts the request of `client` (its address as Express derives it; a Redis round trip only
   * when the store must sync) and resolves to whether it is within the cap. An over-cap request
   * is marked, so the middleware refuses it without counting it again.
   */
  count(req: Request, client: Pick<Request, 'ip'>): Promise<boolean>;
  /**
   * `count`'s answer at once when the store counts the hit in the process (most hits); undefined,
   * counting nothing, when it must ask Redis: then `count` counts it.
   */
  countInProcess(req: Request, client: Pick<Request, 'ip'>): boolean | undefined;
}

const clientCounter = (req: Pick<Request, 'ip'>) => `ip:${clientKey(req)}`;

function refusal(resetTime: Date | undefined, windowMs: number) {
  const seconds = resetTime
    ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000))
    : Math.ceil(windowMs / 1000);
  return tooManyRequests(`Too many requests from your address: try again in ${seconds} s`, seconds);
}

/**
 * Undefined when PUBLIC_RATE_LIMIT is 0. A visitor is never refused because Redis is: when the
 * count cannot be made the request goes through (the redirects keep working without Redis, as
 * they did before the limit), and the failure is logged.
 */
export function createPublicRateLimit(
  options: PublicRateLimitOptions,
): PublicRateLimit | undefined {
  const { limit, windowMs, logger } = options;
  if (limit === 0) return undefined;
  const sendCommand = scriptSafeSendCommand(options.redis);
  const store = new BatchedRateStore({
    redis: new RecoveringRedisStore({ prefix: options.prefix, sendCommand }),
    sendCommand,
    prefix: options.prefix,
    cap: () => limit,
  });
  let failing = false;
  const fail = (err: unknown) => {
    // Once per outage, not once per click.
    if (!failing) logger.warn({ err }, 'public rate limit not counted: Redis unavailable');
    failing = true;
  };
  /** Whether a counted hit is within the cap; one past it is marked for the middleware. */
  const within = (req: Request, { totalHits, resetTime }: IncrementResponse) => {
    failing = false;
    if (totalHits <= limit) return true;
    (req as CountedRequest)[COUNTED] = { resetTime };
    return false;
  };
  const limiter = rateLimit({
    windowMs,
    limit,
    keyGenerator: clientCounter,
    standardHeaders: false,
    legacyHeaders: false,
    // Fail open, logged by `fail` (express-rate-limit would print to stderr per request).
    store: {
      init: (opts) => store.init(opts),
      get: (key) => store.get(key),
      decrement: (key) => store.decrement(key),
      resetKey: (key) => store.resetKey(key),
      increment: async (key) => {
        try {
          const counted = await store.increment(key);
          failing = false;
          return counted;
        } catch (err) {
          fail(err);
          // Counted as a first hit: within any cap, and a value express-rate-limit accepts.
          return { totalHits: 1, resetTime: undefined };
        }
      },
    },
    handler: (req, _res, next) => {
      const info = (req as Request & { rateLimit?: { resetTime?: Date } }).rateLimit;
      next(refusal(info?.resetTime, windowMs));
    },
  });
  return {
    middleware: (req, res, next) => {
      const counted = (req as CountedRequest)[COUNTED];
      if (counted) return next(refusal(counted.resetTime, windowMs));
      return limiter(req, res, next);
    },
    count: async (req, client) => {
      try {
        return within(req, await store.increment(clientCounter(client)));
      } catch (err) {
        fail(err);
        return true;
      }
    },
    countInProcess: (req, client) => {
      const held = store.incrementInProcess(clientCounter(client));
      return held && within(req, held);
    },
  };
}
