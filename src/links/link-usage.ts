import { Link, type LinkRecord } from './link.model';
import { cacheKeysOf, type LinkInvalidator } from './links.service';

/** Drops the cached visitor pages of the owner's links that use a pixel, splash page or overlay. */
export async function invalidateLinksUsing(
  cache: LinkInvalidator,
  userId: number,
  filter: { pixelIds: number } | { splashId: number } | { overlayId: number },
): Promise<LinkRecord[]> {
  const links = await Link.find({ userId, ...filter }).lean<LinkRecord[]>();
  if (links.length) await cache.invalidate(links.flatMap(cacheKeysOf));
  return links;
}

/**
 * Turns the links using a deleted splash page or overlay back into `direct` ones; the number of
 * links changed goes into the delete's answer.
 */
export async function resetLinksUsing(
  cache: LinkInvalidator,
  userId: number,
  filter: { splashId: number } | { overlayId: number },
): Promise<number> {
  const links = await Link.find({ userId, ...filter }).lean<LinkRecord[]>();
  if (!links.length) return 0;
  // Only links still using it: one switched to another splash page meanwhile keeps that one.
  await Link.updateMany(
    { userId, ...filter, id: { $in: links.map((l) => l.id) } },
    { $set: { type: 'direct', splashId: null, overlayId: null } },
  );
  await cache.invalidate(links.flatMap(cacheKeysOf));
  return links.length;
}

const CAS_ATTEMPTS = 20;

/**
 * Removes a deleted pixel from the owner's links. MongoDB would do this in one `updateMany` with
 * `$pull`, but the embedded engine has no `$pull` (docs/mongodb-compatibility.md), so each link is
 * rewritten by compare-and-set: the update only applies while the link's `pixelIds` are still the
 * array it was computed from, and is recomputed when a concurrent write changed them. Atomic per
 * link on MongoDB too, so no concurrent change to a link's pixels is lost.
 */
export async function removePixelFromLinks(
  cache: LinkInvalidator,
  userId: number,
  pixelId: number,
): Promise<void> {
  const links = await Link.find({ userId, pixelIds: pixelId }).lean<LinkRecord[]>();
  for (const link of links) await removePixelFrom(link, pixelId);
  if (links.length) await cache.invalidate(links.flatMap(cacheKeysOf));
}

async function removePixelFrom(first: LinkRecord, pixelId: number): Promise<void> {
  let link: LinkRecord | null = first;
  for (let attempt = 0; attempt < CAS_ATTEMPTS; attempt += 1) {
    const current: number[] = link?.pixelIds ?? [];
    if (!link || !current.includes(pixelId)) return;
    const { matchedCount } = await Link.updateOne(
      { id: link.id, userId: link.userId, pixelIds: { $eq: current } },
      { $set: { pixelIds: current.filter((id) => id !== pixelId) } },
    );
    if (matchedCount === 1) return;
    link = await Link.findOne({ id: link.id, userId: link.userId }).lean<LinkRecord>();
  }
  throw new Error(`link ${first.id}: its pixels kept changing while pixel ${pixelId} was removed`);
}

/** What a delete's answer adds when links were turned back into direct ones. */
export function resetNote(count: number): string {
  if (!count) return '';
  return count === 1
    ? ' 1 link that used it is now a direct link.'
    : ` ${count} links that used it are now direct links.`;
}
