import { isbot } from 'isbot';
import { UAParser } from 'ua-parser-js';
import type { CapturedVisit, DescribedVisit, SocialNetwork } from './visits.types';

const socialHosts: ReadonlyArray<[SocialNetwork, readonly string[]]> = [
  ['facebook', ['facebook.com', 'fb.com', 'fb.me', 'messenger.com']],
  ['twitter', ['twitter.com', 't.co', 'x.com']],
  ['linkedin', ['linkedin.com', 'lnkd.in']],
];

const UNKNOWN = 'Unknown';
export const DIRECT = 'Direct';

function matchesHost(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/** The referrer's host without `www.`, or `Direct` when there is none. */
export function referrerLabel(referrer: string): string {
  if (!referrer) return DIRECT;
  try {
    const host = new URL(referrer).hostname.toLowerCase();
    return host.replace(/^www\./, '') || DIRECT;
  } catch {
    return UNKNOWN;
  }
}

export function socialNetworkOf(label: string): SocialNetwork | null {
  for (const [network, hosts] of socialHosts) {
    if (hosts.some((h) => matchesHost(label, h))) return network;
  }
  return null;
}

/** Derives browser, OS, referrer label, social network and bot flag from a captured visit. */
export function describeVisit(visit: CapturedVisit): DescribedVisit {
  const ua = visit.userAgent;
  const parsed = ua ? new UAParser(ua).getResult() : undefined;
  const label = referrerLabel(visit.referrer);
  return {
    ...visit,
    browser: parsed?.browser.name || UNKNOWN,
    os: parsed?.os.name || UNKNOWN,
    referrerLabel: label,
    social: socialNetworkOf(label),
    // No User-Agent at all is a script, not a person scanning a code.
    bot: !ua || isbot(ua),
  };
}
