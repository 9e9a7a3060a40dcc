import type { Request } from 'express';
import type { AppDeps } from '../deps';

/** The spec's statistics object (part 2); supplied by the shared visits module once merged. */
export interface LinkStatistics {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
  socialCount: { facebook: number; twitter: number; linkedin: number };
}

/** Queues a click; never throws, never delays the redirect. */
export function recordLinkClick(_deps: AppDeps, _id: number, _req: Request): void {}

export async function linkClickCounts(ids: number[]): Promise<Map<number, number>> {
  return new Map(ids.map((id) => [id, 0]));
}

export async function linkStatistics(_id: number): Promise<LinkStatistics> {
  return {
    clicks: 0,
    uniqueClicks: 0,
    topCountries: {},
    topReferrers: {},
    topBrowsers: {},
    topOs: {},
    socialCount: { facebook: 0, twitter: 0, linkedin: 0 },
  };
}

export async function forgetLinkVisits(_id: number): Promise<void> {}
