import type { Model } from 'mongoose';
import { invalidateLinksUsing, removePixelFromLinks } from '../links/link-usage';
import type { LinkInvalidator } from '../links/links.service';
import { notFound, validation } from '../shared/errors/app-error';
import { deleteOwned, findOwned } from '../shared/db/owned';
import { listOwnedCached, peekOwnedPage, type OwnedLists } from '../shared/db/owned-lists';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { Pixel, type PixelRecord } from './pixel.model';
import { checkTag, type PixelType } from './pixel-tags';
import type { PixelCreate, PixelUpdate } from './pixels.schemas';

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedPixels = Pixel as Model<PixelRecord>;

const LABEL = 'Pixel';

function validTag(type: PixelType, tag: string): string {
  const result = checkTag(type, tag);
  if (!result.ok) throw validation(result.message, 'tag');
  return result.tag;
}

export function listPixels(userId: number, query: PageQuery, lists: OwnedLists) {
  return listOwnedCached(lists, ownedPixels, userId, query);
}

/** `listPixels`'s page when this process has it in memory already (see `peekOwnedPage`). */
export function peekPixels(userId: number, query: PageQuery, lists: OwnedLists) {
  return peekOwnedPage(lists, ownedPixels, userId, query);
}

export async function createPixel(userId: number, input: PixelCreate): Promise<PixelRecord> {
  const tag = validTag(input.type, input.tag);
  const doc = await Pixel.create({
    id: await nextId('pixels'),
    userId,
    type: input.type,
    name: input.name,
    tag,
    createdAt: new Date(),
  });
  return doc.toObject();
}

/** The tag is judged against the pixel's stored type, which never changes. */
export async function updatePixel(
  userId: number,
  id: number,
  change: PixelUpdate,
  cache: LinkInvalidator,
): Promise<void> {
  const pixel = await findOwned(ownedPixels, userId, id, LABEL);
  const set: Record<string, string> = { tag: validTag(pixel.type, change.tag) };
  if (change.name !== undefined) set.name = change.name;
  const result = await Pixel.updateOne({ id, userId }, { $set: set });
  if (result.matchedCount === 0) throw notFound(`${LABEL} not found`);
  await invalidateLinksUsing(cache, userId, { pixelIds: id });
}

/** Deletes the pixel; the links that fired it stop doing so. */
export async function deletePixel(
  userId: number,
  id: number,
  cache: LinkInvalidator,
): Promise<void> {
  await deleteOwned(ownedPixels, userId, id, LABEL);
  await removePixelFromLinks(cache, userId, id);
}
