import { isbot } from 'isbot';
import { LRUCache } from 'lru-cache';
import { UAParser } from 'ua-parser-js';
import type { CapturedVisit, ClickLabels, SocialNetwork } from './visits.types';

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

interface Agent {
  browser: string;
  os: string;
  bot: boolean;
}

/**
 * `parse` kept per key in a bounded LRU, the key asked last compared first: the clicks of a stream
 * entry mostly share one, and comparing the string is cheaper than the cache's hashing and
 * reordering of it (once per click drained). Parsing is pure, so nothing needs invalidating; a
 * result is the same object for as long as it is cached (`labelSets` keys on it).
 */
function parsedOnce<V extends object>(parse: (key: string) => V): (key: string) => V {
  const cache = new LRUCache<string, V>({ max: 2_000 });
  let last: { key: string; value: V } | undefined;
  return (key) => {
    if (last?.key === key) return last.value;
    let value = cache.get(key);
    if (!value) {
      value = parse(key);
      cache.set(key, value);
    }
    last = { key, value };
    return value;
  };
}

/**
 * Parsed User-Agents. Visitors send a few hundred distinct strings, and parsing one is the
 * drain's costliest step per visit.
 */
const parseAgent = parsedOnce((ua): Agent => {
  const parsed = ua ? new UAParser(ua).getResult() : undefined;
  return {
    browser: parsed?.browser.name || UNKNOWN,
    os: parsed?.os.name || UNKNOWN,
    // No User-Agent at all is a script, not a person scanning a code.
    bot: !ua || isbot(ua),
  };
});

interface Referrer {
  label: string;
  social: SocialNetwork | null;
}

/** Referrers by their full value: most clicks come from a few pages (or none), parsed once. */
const parseReferrer = parsedOnce((referrer): Referrer => {
  const label = referrerLabel(referrer);
  return { label, social: socialNetworkOf(label) };
});

/**
 * Label sets by parsed agent and referrer, then country and variant: the clicks of a batch share a
 * few, so a bucket stores each once (visit-bucket-form.ts) and the rollups count per set, not per
 * click. An agent or referrer dropped from its cache takes its sets with it.
 */
const labelSets = new WeakMap<Agent, WeakMap<Referrer, Map<string, ClickLabels>>>();

/** The labels found last and what they were found by: most clicks of an entry share them. */
let lastLabels:
  | { agent: Agent; referrer: Referrer; country: string; variant?: string; labels: ClickLabels }
  | undefined;

/** The labels of a click: the same object for the same labels while its agent and referrer are cached. */
export function clickLabelsOf(visit: CapturedVisit): ClickLabels {
  const agent = parseAgent(visit.userAgent);
  const referrer = parseReferrer(visit.referrer);
  const last = lastLabels;
  if (
    last?.agent === agent &&
    last.referrer === referrer &&
    last.country === visit.country &&
    last.variant === visit.variant
  )
    return last.labels;
  let byReferrer = labelSets.get(agent);
  if (!byReferrer) {
    byReferrer = new WeakMap();
    labelSets.set(agent, byReferrer);
  }
  let sets = byReferrer.get(referrer);
  if (!sets) {
    sets = new Map();
    byReferrer.set(referrer, sets);
  }
  const key = visit.variant ? `${visit.country}\0${visit.variant}` : visit.country;
  let labels = sets.get(key);
  if (!labels) {
    labels = {
      country: visit.country,
      referrer: referrer.label,
      browser: agent.browser,
      os: agent.os,
      social: referrer.social,
      bot: agent.bot,
    };
    if (visit.variant) labels.variant = visit.variant;
    sets.set(key, labels);
  }
  lastLabels = { agent, referrer, country: visit.country, variant: visit.variant, labels };
  return labels;
}
