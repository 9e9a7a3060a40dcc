import type { Config } from '../src/config';
import { domainCacheFor } from '../src/domains/domain-cache';
import type { DomainResolver } from '../src/domains/domain-check';
import { systemResolver } from '../src/domains/domain-check';
import { recheckDomains } from '../src/domains/domain-verification.service';
import type { Logger } from '../src/shared/infra/logger';
import type { RedisClient } from '../src/shared/infra/redis-connections';
import type { RedisKeys } from '../src/shared/infra/redis-keys';
import type { WebhookEvents } from '../src/webhooks/webhooks.jobs';

/** How often the worker looks for domains whose check is due (each is due every DOMAIN_RECHECK_MS). */
const TICK_MS = 60_000;

/**
 * Re-verifies branded domains' ownership records (issue 29, M6): every domain is checked again
 * DOMAIN_RECHECK_MS after its last check; several workers share the work, each domain taken by
 * one. Nothing runs with DOMAIN_CHECK=off.
 */
export function startDomainRecheck(options: {
  config: Config;
  logger: Logger;
  redis: RedisClient;
  keys: RedisKeys;
  events: WebhookEvents;
  resolver?: DomainResolver;
}): { stop(): void } {
  const { config, logger } = options;
  if (config.domainCheck === 'off') return { stop: () => undefined };
  const ctx = {
    resolver: options.resolver ?? systemResolver(),
    domainCheck: config.domainCheck,
    recheckMs: config.domainRecheckMs,
    hosts: domainCacheFor({ redis: options.redis, keys: options.keys, logger }),
    events: options.events,
    logger,
  };
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const result = await recheckDomains(ctx);
      if (result.checked) logger.info(result, 'branded domains re-verified');
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'domain re-verification failed; retrying later');
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), Math.min(TICK_MS, config.domainRecheckMs));
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
