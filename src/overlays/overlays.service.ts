import type { Model } from 'mongoose';
import { notFound } from '../shared/errors/app-error';
import { listOwned } from '../shared/db/owned';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { findUserById } from '../users/users.service';
import { Overlay, type OverlayRecord } from './overlay.model';
import type { OverlayCreate } from './overlays.schemas';

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedOverlays = Overlay as Model<OverlayRecord>;

export function listOverlays(userId: number, query: PageQuery) {
  return listOwned(ownedOverlays, userId, query);
}

export async function createOverlay(userId: number, input: OverlayCreate): Promise<OverlayRecord> {
  if (!(await findUserById(userId))) throw notFound(`No user with id ${userId}`);
  const doc = await Overlay.create({
    id: await nextId('overlays'),
    userId,
    type: input.type,
    name: input.name,
    createdAt: new Date(),
  });
  return doc.toObject();
}
