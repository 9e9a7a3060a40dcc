import { Link, type LinkRecord } from '../../src/links/link.model';
import { originsOf } from '../../src/links/link-domains';
import {
  healthEvent,
  healthOf,
  nextHealth,
  presentHealth,
  type CheckResult,
  type LinkHealth,
} from '../../src/links/link-health';
import { presentLink } from '../../src/links/links.presenter';
import { cacheKeysOf } from '../../src/links/links.service';
import type { Invalidator } from '../../src/shared/cache/shared-cache';
import type { Logger } from '../../src/shared/infra/logger';
import type { WebhookEvents } from '../../src/webhooks/webhooks.jobs';

export interface LinkCheckContext {
  /** LINK_CHECK_INTERVAL_S in ms: a destination is checked at most once per interval. */
  intervalMs: number;
  probe(destination: string): Promise<CheckResult>;
  events: Pick<WebhookEvents, 'emit'>;
  /** The link cache of every API process: a link that breaks or recovers changes its target. */
  cache: Invalidator;
  publicUrl: string;
  logger: Logger;
  /** Hosts checked at the same time. */
  concurrency?: number;
  /** Pause between two requests to one host. */
  hostGapMs?: number;
  /** Destinations of one host per run; the others wait for the next run. */
  perHostPerRun?: number;
  /** Due links read per run. */
  batch?: number;
}

export interface RunSummary {
  /** Destinations requested. */
  probed: number;
  /** Links given the recent result of another link with the same destination. */
  reused: number;
  /** Links that broke or recovered. */
  changed: number;
}

type Health = Pick<LinkRecord, 'health'>['health'];
const checkedAt = (health: Health) => health?.checked?.getTime() ?? -Infinity;

/** Runs `work` over `items`, at most `limit` at a time. */
async function pooled<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++] as T);
  });
  await Promise.all(lanes);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Stores each link's new health; tells the owner and the caches about links that changed. */
async function apply(
  ctx: LinkCheckContext,
  links: LinkRecord[],
  healthFor: (link: LinkRecord) => LinkHealth,
): Promise<number> {
  const changed: Array<{ link: LinkRecord; event: 'link.broken' | 'link.recovered' }> = [];
  const writes = links.map((link) => {
    const health = healthFor(link);
    const event = healthEvent(healthOf(link.health).status, health.status);
    if (event) changed.push({ link: { ...link, health }, event });
    // A link whose destination changed meanwhile keeps what its own (reset) health says.
    return {
      updateOne: {
        filter: { id: link.id, url: link.url, monitor: true },
        update: { $set: { health } },
      },
    };
  });
  if (writes.length) await Link.bulkWrite(writes, { ordered: false });
  if (!changed.length) return 0;
  await ctx.cache.invalidate(changed.flatMap(({ link }) => cacheKeysOf(link)));
  const origins = await originsOf(changed.map(({ link }) => link));
  for (const { link, event } of changed) {
    const data = presentLink(link, origins, ctx.publicUrl, link.clicks ?? 0);
    await ctx.events.emit(link.userId, event, { ...data, health: presentHealth(link.health) });
    ctx.logger.info({ link: link.id, event, error: link.health?.lastError }, 'link health changed');
  }
  return changed.length;
}

/**
 * One pass over the monitored links due for a check (never checked, or not within the interval).
 * Each destination is requested once for all its links, and not at all when one of its links was
 * checked within the interval (the due ones take that result): at most one request per
 * destination per interval. Hosts are checked a few at a time, one request at a time each.
 */
export async function runLinkChecks(ctx: LinkCheckContext, now = new Date()): Promise<RunSummary> {
  const cutoff = new Date(now.getTime() - ctx.intervalMs);
  const due = await Link.find({ monitor: true, 'health.checked': { $not: { $gt: cutoff } } })
    .sort({ 'health.checked': 1 })
    .limit(ctx.batch ?? 1000)
    .lean<LinkRecord[]>();
  const summary: RunSummary = { probed: 0, reused: 0, changed: 0 };
  if (!due.length) return summary;
  const urls = [...new Set(due.map((l) => l.url))];
  const byUrl = new Map<string, LinkRecord[]>();
  for (const link of await Link.find({ monitor: true, url: { $in: urls } }).lean<LinkRecord[]>())
    byUrl.set(link.url, [...(byUrl.get(link.url) ?? []), link]);

  const byHost = new Map<string, string[]>();
  for (const [url, links] of byUrl) {
    const freshest = links.reduce((a, b) => (checkedAt(b.health) > checkedAt(a.health) ? b : a));
    if (checkedAt(freshest.health) > cutoff.getTime()) {
      const stale = links.filter((l) => checkedAt(l.health) <= cutoff.getTime());
      summary.changed += await apply(ctx, stale, () => healthOf(freshest.health));
      summary.reused += stale.length;
      continue;
    }
    const host = new URL(url).host;
    const queued = byHost.get(host) ?? [];
    if (queued.length < (ctx.perHostPerRun ?? 20)) byHost.set(host, [...queued, url]);
  }

  await pooled([...byHost.values()], ctx.concurrency ?? 8, async (hostUrls) => {
    for (const [i, url] of hostUrls.entries()) {
      if (i > 0) await pause(ctx.hostGapMs ?? 1000);
      try {
        const result = await ctx.probe(url);
        summary.probed += 1;
        const links = byUrl.get(url) ?? [];
        summary.changed += await apply(ctx, links, (l) =>
          nextHealth(healthOf(l.health), result, now),
        );
      } catch (err) {
        // Its links stay due: the next pass tries again.
        ctx.logger.warn({ err: (err as Error).message }, 'link check not stored');
      }
    }
  });
  return summary;
}
