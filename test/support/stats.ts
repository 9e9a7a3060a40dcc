import { randomBytes } from 'node:crypto';
import { applyVisits } from '../../src/visits/visit-apply';
import type { VisitKind } from '../../src/visits/visits.types';
import type { TestApp } from './app-harness';

export const CHROME =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
export const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0';
export const GOOGLEBOT = 'Googlebot/2.1 (+http://www.google.com/bot.html)';

export interface PastVisit {
  at: string;
  visitor?: string;
  country?: string;
  userAgent?: string;
  referrer?: string;
}

/**
 * Applies visits at chosen times through the drain's apply step (a redirect can only record
 * "now"), as one batch, the way the drainer would.
 */
export async function applyPastVisits(
  app: TestApp,
  target: { kind: VisitKind; id: number },
  visits: PastVisit[],
): Promise<number> {
  const batch = visits.map((v) => ({
    entryId: `test-${randomBytes(6).toString('hex')}`,
    visit: {
      kind: target.kind,
      targetId: target.id,
      at: Date.parse(v.at),
      visitor: v.visitor ?? randomBytes(8).toString('hex'),
      country: v.country ?? 'Germany',
      userAgent: v.userAgent ?? CHROME,
      referrer: v.referrer ?? '',
    },
  }));
  return applyVisits(batch, app.deps.redis, app.deps.keys);
}
