import type { Request, RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { findCallerByHash, type Caller } from '../keys/callers';
import { currentKey, type AuthState } from './auth-state';
import { keyUsageFor, type KeyUsage } from '../keys/key-usage';
import { forbidden, unauthorized } from '../shared/errors/app-error';
import { API_KEY_PATTERN, hashApiKey } from '../shared/secrets';
import { apiKeyCacheFor, type ApiKeyCache } from '../users/api-key-cache';
import type { UserRecord } from '../users/user.model';
import type { ApiRateLimiter } from '../shared/http/rate-limit';

export type { AuthState };
export { currentKey };

/** `Bearer` is the spec's scheme; GemPixel's own wrapper and many of its clients send `Token`. */
const AUTHORIZATION = /^(?:Bearer|Token) ([^\s]+)$/i;

const passed = (date: Date | null, now: Date) => !!date && date.getTime() <= now.getTime();

/** The hash of the request's key, or why its header names no well-formed key. */
function keyHashOf(header: string | undefined): { hash: string } | { failure: string } {
  if (!header) return { failure: 'Missing API key: send Authorization: Bearer <API_KEY>' };
  const match = AUTHORIZATION.exec(header.trim());
  if (!match?.[1]) {
    return {
      failure: 'Malformed Authorization header: expected Bearer <API_KEY> or Token <API_KEY>',
    };
  }
  if (!API_KEY_PATTERN.test(match[1])) return { failure: 'Malformed API key' };
  return { hash: hashApiKey(match[1]) };
}

/** Why a key's caller may not act now, if they may not. */
function refusal({ user, key }: Caller, now: Date): string | undefined {
  if (user.expires && user.expires.getTime() <= now.getTime()) {
    return 'API key expired: the account plan ended';
  }
  if (passed(key.expires, now)) return 'API key expired';
  if (passed(key.until, now)) return 'API key replaced: its rotation grace period ended';
  return undefined;
}

/** Why a key's caller may not act now, or who they are (noting the key's use). */
function judge(caller: Caller | null, now: Date, usage: KeyUsage): AuthState {
  if (!caller) return { failure: 'Invalid API key' };
  const failure = refusal(caller, now);
  if (failure !== undefined) return { failure };
  usage.touch(caller, now);
  return { user: caller.user, key: caller.key };
}

/**
 * Why a request's credentials are not acceptable, or the user they belong to: at once when the
 * key's caller (or its absence) is cached, as for nearly every request, else after the lookup.
 */
function authenticate(
  header: string | undefined,
  now: Date,
  callers: ApiKeyCache,
  usage: KeyUsage,
  mayLookUp: () => Promise<boolean>,
): AuthState | Promise<AuthState> {
  const key = keyHashOf(header);
  if ('failure' in key) return key;
  const cached = callers.peek(key.hash);
  if (cached === undefined) return lookUp(key.hash, now, callers, usage, mayLookUp);
  // `peek` counts nothing: this is the hit `get` would have counted.
  callers.lookups.hit.inc();
  return judge(cached, now, usage);
}

async function lookUp(
  hash: string,
  now: Date,
  callers: ApiKeyCache,
  usage: KeyUsage,
  mayLookUp: () => Promise<boolean>,
): Promise<AuthState> {
  if (!(await mayLookUp())) return { failure: NOT_LOOKED_UP };
  return judge(await callers.get(hash, () => findCallerByHash(hash)), now, usage);
}

/** Only seen when the address's window ends between this check and the limiter's count. */
const NOT_LOOKED_UP =
  'API key not checked: too many requests without a valid key from this address';

/**
 * Resolves the caller without rejecting yet, so the rate limiter can count failed attempts per IP
 * and every 401 still carries the rate-limit headers. A key this process has not cached is looked
 * up only while the address has requests without a valid key left (`anonymousSpent`, one Redis
 * read): a flood of random keys meets the limiter's 429, not MongoDB (issue 29, L3).
 */
export function resolveAuth(
  deps: AppDeps,
  limiter: Pick<ApiRateLimiter, 'anonymousSpent'>,
): RequestHandler {
  const callers = apiKeyCacheFor(deps);
  const usage = keyUsageFor(deps);
  return (req, _res, next) => {
    const mayLookUp = async () => !(await limiter.anonymousSpent(req));
    const state = authenticate(req.headers.authorization, new Date(), callers, usage, mayLookUp);
    if (state instanceof Promise) {
      return state.then((resolved) => {
        req.auth = resolved;
        next();
      });
    }
    req.auth = state;
    next();
  };
}

/**
 * The key cache as seen by a request answered before the middleware runs (the hot lists' fast
 * path): `peek` finds the caller of a cached key that may act now and counts nothing, so a
 * request handed on to the middleware is counted once; `admit` counts the cache hit and notes
 * the key's use as `resolveAuth` would, and answers the request's auth state.
 */
export interface CachedCallers {
  peek(header: string | undefined, now: Date): Caller | undefined;
  admit(caller: Caller, now: Date): AuthState;
}

export function cachedCallers(deps: AppDeps): CachedCallers {
  const callers = apiKeyCacheFor(deps);
  const usage = keyUsageFor(deps);
  return {
    peek(header, now) {
      const key = keyHashOf(header);
      if ('failure' in key) return undefined;
      const caller = callers.peek(key.hash);
      return caller && refusal(caller, now) === undefined ? caller : undefined;
    },
    admit(caller, now) {
      callers.lookups.hit.inc();
      return judge(caller, now, usage);
    },
  };
}

export const requireAuth: RequestHandler = (req, _res, next) => {
  if (!req.auth || 'failure' in req.auth)
    return next(unauthorized(req.auth?.failure ?? 'Unauthorized'));
  next();
};

/** The authenticated user of a request that passed `requireAuth`. */
export function currentUser(req: Request): UserRecord {
  if (!req.auth || !('user' in req.auth)) throw unauthorized('Unauthorized');
  return req.auth.user;
}

/** Whether the request is a dashboard session's (not an API key's). */
export function viaSession(req: Request): boolean {
  return Boolean(req.auth && 'user' in req.auth && req.auth.session);
}

/** Routes of GemPixel's admin API: any valid key gets past auth, only an administrator's further. */
export const requireAdmin: RequestHandler = (req, _res, next) => {
  if (!currentUser(req).admin) {
    return next(forbidden("Forbidden: this endpoint needs an administrator's API key"));
  }
  next();
};
