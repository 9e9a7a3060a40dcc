import { randomBytes } from 'node:crypto';
import type { Config } from '../../src/config';
import { linkCacheFor } from '../../src/links/link-cache';
import type { Logger } from '../../src/shared/infra/logger';
import type { RedisClient } from '../../src/shared/infra/redis-connections';
import type { RedisKeys } from '../../src/shared/infra/redis-keys';
import type { WebhookEvents } from '../../src/webhooks/webhooks.jobs';
import { probeDestination } from './link-check.probe';
import { runLinkChecks, type LinkCheckContext, type RunSummary } from './link-check.run';

/** A pass never takes longer than this (hosts are capped per pass); then another worker may run. */
const LOCK_MS = 10 * 60_000;
/** How often due links are looked for: each is checked within one interval of falling due. */
const MAX_TICK_MS = 60_000;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

export interface LinkChecks {
  /** One pass now (tests pass `now` to stand an interval later); null when another runs it. */
  run(now?: Date): Promise<RunSummary | null>;
  stop(): void;
}

export interface LinkCheckDeps {
  config: Config;
  logger: Logger;
  /** A non-blocking connection: the lock, and the link cache's invalidations. */
  redis: RedisClient;
  keys: RedisKeys;
  events: Pick<WebhookEvents, 'emit'>;
}

/** The context of a pass as the configuration asks (tests override what they are about). */
export function linkCheckContext(
  deps: LinkCheckDeps,
  overrides: Partial<LinkCheckContext> = {},
): LinkCheckContext {
  const { config } = deps;
  return {
    intervalMs: config.linkCheckIntervalS * 1000,
    probe: (url) =>
      probeDestination(url, {
        allowPrivate: config.linkCheckAllowPrivate,
        userAgent: `linkqr-link-check/1 (+${config.publicUrl})`,
      }),
    events: deps.events,
    cache: linkCacheFor(deps),
    publicUrl: config.publicUrl,
    logger: deps.logger,
    ...overrides,
  };
}

/**
 * Checks monitored links' destinations from the worker (issue 24, item 5): a pass at start and
 * every minute (or every interval, when shorter), one worker process at a time.
 */
export function startLinkChecks(
  deps: LinkCheckDeps,
  options: { timer?: boolean; context?: Partial<LinkCheckContext> } = {},
): LinkChecks {
  const { redis, keys, logger } = deps;
  const ctx = linkCheckContext(deps, options.context);
  const lock = keys.key('link-checks', 'lock');
  const run = async (now?: Date) => {
    const token = randomBytes(12).toString('base64url');
    if ((await redis.set(lock, token, 'PX', LOCK_MS, 'NX')) === null) return null;
    try {
      return await runLinkChecks(ctx, now);
    } finally {
      await redis.eval(RELEASE, 1, lock, token).catch(() => undefined);
    }
  };
  const safeRun = () =>
    run().then(
      (summary) => {
        if (summary?.probed) logger.debug({ ...summary }, 'link checks done');
      },
      (err: unknown) => logger.warn({ err: (err as Error).message }, 'link checks failed'),
    );
  if (options.timer === false) return { run, stop: () => undefined };
  // Fire and forget: safeRun logs its own failure, so its promise never rejects.
  void safeRun();
  const timer = setInterval(() => void safeRun(), Math.min(ctx.intervalMs, MAX_TICK_MS));
  timer.unref();
  return { run, stop: () => clearInterval(timer) };
}
