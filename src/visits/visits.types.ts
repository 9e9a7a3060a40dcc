import Joi from 'joi';
import { mapOf, record } from '../shared/http/responses';

export type VisitKind = 'link' | 'qr';

export interface VisitTarget {
  kind: VisitKind;
  id: number;
  /** For `record`: the A/B variant (its URL) the visitor was sent to. */
  variant?: string;
}

export const SOCIAL_NETWORKS = ['facebook', 'twitter', 'linkedin'] as const;
export type SocialNetwork = (typeof SOCIAL_NETWORKS)[number];

/** The spec's statistics object (part 2). */
export interface Statistics {
  clicks: number;
  uniqueClicks: number;
  topCountries: Record<string, string>;
  topReferrers: Record<string, string>;
  topBrowsers: Record<string, string>;
  topOs: Record<string, string>;
  socialCount: Record<SocialNetwork, number>;
}

/** What the redirect captures: no raw address, only its salted hash. */
export interface CapturedVisit {
  kind: VisitKind;
  targetId: number;
  at: number;
  visitor: string;
  country: string;
  userAgent: string;
  referrer: string;
  /** The A/B variant the visitor was sent to (its URL as configured), or absent. */
  variant?: string;
  /**
   * The click's own id, made by the process that served it (no Redis round trip): every copy of
   * the click (a re-send after an unanswered XADD, a redelivery after a failover, the spool's
   * write straight into MongoDB) carries it, and the visit is stored under it once. Absent on
   * clicks queued by versions before it, which are stored under their stream entry id.
   */
  clickId?: string;
  /**
   * Sent to Redis before without an answer (the connection dropped under the XADD): the first
   * copy may be queued too, so whoever stores this one looks for it first.
   */
  resent?: boolean;
}

/** Every label a click is counted under; the clicks of a bucket share a handful of these. */
export interface ClickLabels {
  country: string;
  referrer: string;
  browser: string;
  os: string;
  social: SocialNetwork | null;
  bot: boolean;
  /** The A/B variant's URL, for links with variants. */
  variant?: string;
}

export const DIMENSIONS = ['country', 'referrer', 'browser', 'os', 'variant'] as const;
export type Dimension = (typeof DIMENSIONS)[number];

export const targetKey = (t: { kind: VisitKind; id: number }) => `${t.kind}:${t.id}`;

const count = Joi.number().integer().min(0);
const top = mapOf(Joi.string().pattern(/^\d+$/)).description('label -> count (a string), top 10');

/** The statistics object's JSON (`data` of `GET /api/url/:id` and `GET /api/qr/:id`). */
export const statisticsJson = record({
  clicks: count.example(128),
  uniqueClicks: count.example(97),
  topCountries: top.example({ DE: '40', US: '31' }),
  topReferrers: top.example({ Direct: '70', 'news.example.org': '12' }),
  topBrowsers: top.example({ Chrome: '80' }),
  topOs: top.example({ Android: '52' }),
  socialCount: record({ facebook: count, twitter: count, linkedin: count }),
});
