import type { Model } from 'mongoose';
import { listOwned } from '../shared/db/owned';
import { notFound } from '../shared/errors/app-error';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { OverlayResponse, type OverlayResponseRecord } from './overlay-response.model';
import { Overlay } from './overlay.model';

export interface ContactSubmission {
  name: string;
  email: string;
  message: string;
}

/** Stores a visitor's contact-form message for the overlay's owner and counts it. */
export async function storeContactResponse(
  overlayId: number,
  linkId: number,
  input: ContactSubmission,
): Promise<boolean> {
  const overlay = await Overlay.findOne({ id: overlayId, type: 'contact' }).lean();
  if (!overlay) return false;
  await OverlayResponse.create({
    id: await nextId('overlay_responses'),
    userId: overlay.userId,
    overlayId,
    linkId,
    ...input,
    createdAt: new Date(),
  });
  // Naming the owner drops only their cached overlay list (see owned-lists.ts).
  await Overlay.updateOne({ id: overlayId, userId: overlay.userId }, { $inc: { responses: 1 } });
  return true;
}

/** A page of the messages an overlay received, newest first; 404 unless the caller owns it. */
export async function listContactResponses(
  userId: number,
  overlayId: number,
  query: PageQuery,
): Promise<{ items: OverlayResponseRecord[]; total: number }> {
  if (!(await Overlay.exists({ id: overlayId, userId }))) throw notFound('Overlay not found');
  return listOwned(OverlayResponse as Model<OverlayResponseRecord>, userId, query, { overlayId });
}

/** Deleting an overlay deletes what it collected. */
export async function deleteContactResponses(userId: number, overlayId: number): Promise<void> {
  await OverlayResponse.deleteMany({ overlayId, userId });
}
