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
  await Link.updateMany(
    { userId, id: { $in: links.map((l) => l.id) } },
    { $set: { type: 'direct', splashId: null, overlayId: null } },
  );
  await cache.invalidate(links.flatMap(cacheKeysOf));
  return links.length;
}

/** Removes a deleted pixel from the owner's links (rewritten whole: no `$pull` on the engine). */
export async function removePixelFromLinks(
  cache: LinkInvalidator,
  userId: number,
  pixelId: number,
): Promise<void> {
  const links = await Link.find({ userId, pixelIds: pixelId }).lean<LinkRecord[]>();
  for (const link of links) {
    await Link.updateOne(
      { id: link.id, userId },
      { $set: { pixelIds: (link.pixelIds ?? []).filter((id) => id !== pixelId) } },
    );
  }
  if (links.length) await cache.invalidate(links.flatMap(cacheKeysOf));
}

/** What a delete's answer adds when links were turned back into direct ones. */
export function resetNote(count: number): string {
  if (!count) return '';
  return count === 1
    ? ' 1 link that used it is now a direct link.'
    : ` ${count} links that used it are now direct links.`;
}
