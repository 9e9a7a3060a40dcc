import type { Model } from 'mongoose';
import { notFound } from '../shared/errors/app-error';
import { listOwned } from '../shared/db/owned';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { findUserById } from '../users/users.service';
import { SplashPage, type SplashPageRecord } from './splash-page.model';
import type { SplashCreate } from './splash.schemas';

// The owned-record helpers take a plain Model<T>; this schema has no version key to match it.
const ownedSplashPages = SplashPage as Model<SplashPageRecord>;

export function listSplashPages(userId: number, query: PageQuery) {
  return listOwned(ownedSplashPages, userId, query);
}

export async function createSplashPage(
  userId: number,
  input: SplashCreate,
): Promise<SplashPageRecord> {
  if (!(await findUserById(userId))) throw notFound(`No user with id ${userId}`);
  const doc = await SplashPage.create({
    id: await nextId('splash'),
    userId,
    name: input.name,
    createdAt: new Date(),
  });
  return doc.toObject();
}
