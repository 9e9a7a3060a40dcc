import type { Model } from 'mongoose';
import { invalidateLinksUsing, resetLinksUsing } from '../links/link-usage';
import type { LinkInvalidator } from '../links/links.service';
import { notFound } from '../shared/errors/app-error';
import { deleteOwned, findOwned } from '../shared/db/owned';
import { listOwnedCached, type OwnedLists } from '../shared/db/owned-lists';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { findUserById } from '../users/users.service';
import { SplashPage, type SplashPageRecord } from './splash-page.model';
import type { SplashCreate, SplashUpdate } from './splash.schemas';

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedSplashPages = SplashPage as Model<SplashPageRecord>;
const LABEL = 'Splash page';

export function listSplashPages(userId: number, query: PageQuery, lists: OwnedLists) {
  return listOwnedCached(lists, ownedSplashPages, userId, query);
}

export async function createSplashPage(
  userId: number,
  input: SplashCreate,
): Promise<SplashPageRecord> {
  if (!(await findUserById(userId))) throw notFound(`No user with id ${userId}`);
  const doc = await SplashPage.create({
    ...input,
    id: await nextId('splash'),
    userId,
    createdAt: new Date(),
  });
  return doc.toObject();
}

/** Links showing the page pick the change up at once (their cached pages are dropped). */
export async function updateSplashPage(
  userId: number,
  id: number,
  change: SplashUpdate,
  cache: LinkInvalidator,
): Promise<void> {
  await findOwned(ownedSplashPages, userId, id, LABEL);
  await SplashPage.updateOne({ id, userId }, { $set: change });
  await invalidateLinksUsing(cache, userId, { splashId: id });
}

/** Deletes the page; the links that used it become direct. */
export async function deleteSplashPage(
  userId: number,
  id: number,
  cache: LinkInvalidator,
): Promise<number> {
  await deleteOwned(ownedSplashPages, userId, id, LABEL);
  return resetLinksUsing(cache, userId, { splashId: id });
}
