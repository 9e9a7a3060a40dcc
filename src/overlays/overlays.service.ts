import type { Model } from 'mongoose';
import { invalidateLinksUsing, resetLinksUsing } from '../links/link-usage';
import type { LinkInvalidator } from '../links/links.service';
import { notFound } from '../shared/errors/app-error';
import { deleteOwned, findOwned } from '../shared/db/owned';
import { listOwnedCached, type OwnedLists } from '../shared/db/owned-lists';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { findUserById } from '../users/users.service';
import { deleteContactResponses } from './overlay-responses.service';
import { Overlay, type OverlayRecord } from './overlay.model';
import type { OverlayCreate, OverlayUpdate } from './overlays.schemas';

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedOverlays = Overlay as Model<OverlayRecord>;
const LABEL = 'Overlay';

export function listOverlays(userId: number, query: PageQuery, lists: OwnedLists) {
  return listOwnedCached(lists, ownedOverlays, userId, query);
}

export async function createOverlay(userId: number, input: OverlayCreate): Promise<OverlayRecord> {
  if (!(await findUserById(userId))) throw notFound(`No user with id ${userId}`);
  const doc = await Overlay.create({
    ...input,
    id: await nextId('overlays'),
    userId,
    createdAt: new Date(),
  });
  return doc.toObject();
}

/** Links showing the overlay pick the change up at once (their cached pages are dropped). */
export async function updateOverlay(
  userId: number,
  id: number,
  change: OverlayUpdate,
  cache: LinkInvalidator,
): Promise<void> {
  await findOwned(ownedOverlays, userId, id, LABEL);
  await Overlay.updateOne({ id, userId }, { $set: change });
  await invalidateLinksUsing(cache, userId, { overlayId: id });
}

/** Deletes the overlay and its responses; the links that used it become direct. */
export async function deleteOverlay(
  userId: number,
  id: number,
  cache: LinkInvalidator,
): Promise<number> {
  await deleteOwned(ownedOverlays, userId, id, LABEL);
  await deleteContactResponses(userId, id);
  return resetLinksUsing(cache, userId, { overlayId: id });
}
