import { createHash, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An A/B variant as the cached link carries it. */
export interface CachedVariant {
  /** The destination, the link's parameters appended. */
  url: string;
  /** The URL as configured: the label its clicks are counted under. */
  label: string;
  /** Integer percentage; a link's weights add up to 100. */
  weight: number;
  /** What the visitor's cookie holds: the same for the same URL, whatever the order. */
  tag: string;
}

/** A visitor keeps its variant this long (the cookie's Max-Age). */
export const VARIANT_COOKIE_MAX_AGE_S = 30 * 24 * 3600;

export function variantTag(url: string): string {
  return createHash('sha256').update(url).digest('hex').slice(0, 10);
}

export const variantCookieName = (linkId: number) => `lqv${linkId}`;

function cookieValue(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const match = new RegExp(`(?:^|;\\s*)${name}=([0-9a-f]{10})(?:;|$)`).exec(header);
  return match?.[1];
}

/** By weight: a uniform integer in [0, 100) falls in one variant's share. */
function drawn(variants: readonly CachedVariant[]): CachedVariant {
  let point = randomInt(100);
  for (const variant of variants) {
    if (point < variant.weight) return variant;
    point -= variant.weight;
  }
  return variants[variants.length - 1] as CachedVariant;
}

/**
 * The visitor's variant: the one its cookie names while that variant still exists, else one drawn
 * by weight and remembered in the cookie (per link, 30 days).
 */
export function variantFor(
  req: IncomingMessage,
  res: ServerResponse,
  linkId: number,
  variants: readonly CachedVariant[],
): CachedVariant {
  const name = variantCookieName(linkId);
  const kept = cookieValue(req, name);
  const known = kept && variants.find((v) => v.tag === kept);
  if (known) return known;
  const variant = drawn(variants);
  res.appendHeader(
    'Set-Cookie',
    `${name}=${variant.tag}; Max-Age=${VARIANT_COOKIE_MAX_AGE_S}; Path=/; HttpOnly; SameSite=Lax`,
  );
  return variant;
}
