import mongoose from 'mongoose';
import { randomAlias, linkAliasScope } from '../links/aliases';
import { DEFAULT_DOMAIN_ID, Link } from '../links/link.model';
import { searchKeysOf } from '../links/link-search';
import { Counter } from '../shared/ids/counter.model';
import { AliasReservation } from '../links/alias.model';
import { VisitTotal } from '../visits/visit.model';

const WORDS = ['spring', 'sale', 'news', 'docs', 'café', 'launch', 'report', 'video', 'promo'];

/**
 * Inserts `count` links for one user, a batch per write (ids reserved with one `$inc`, aliases
 * claimed for good, running click totals skewed as real traffic is), for `npm run seed` and the
 * storage bench. Returns the links' ids, lowest first.
 */
export async function seedLinks(
  userId: number,
  count: number,
  onBatch?: (done: number) => void,
  batchSize = 1000,
): Promise<{ first: number; last: number }> {
  const db = mongoose.connection.db;
  if (!db) throw new Error('MongoDB is not connected');
  let first = 0;
  let last = 0;
  for (let done = 0; done < count;) {
    const n = Math.min(batchSize, count - done);
    const counter = await Counter.findOneAndUpdate(
      { _id: 'links' },
      { $inc: { seq: n } },
      { upsert: true, returnDocument: 'after' },
    ).lean<{ seq: number }>();
    const top = counter?.seq ?? n;
    const now = Date.now();
    const docs = Array.from({ length: n }, (_, k) => {
      const id = top - n + 1 + k;
      const alias = `${randomAlias(6)}${id.toString(36)}`;
      const url = `https://example.com/${WORDS[id % WORDS.length]}/${id}`;
      const title = `${WORDS[(id * 7) % WORDS.length]} ${WORDS[(id * 3) % WORDS.length]} ${id}`;
      // Zipf-like: a few links take most clicks.
      const clicks = Math.floor(100_000 / (1 + (id % 10_000)));
      return {
        id,
        userId,
        domainId: DEFAULT_DOMAIN_ID,
        alias,
        url,
        title,
        description: '',
        expiry: null,
        passwordHash: null,
        campaignId: null,
        type: 'direct',
        pixelIds: [],
        clicks,
        searchKeys: searchKeysOf({ alias, url, title }),
        createdAt: new Date(now - (count - done - k) * 1000),
      };
    });
    await db.collection(AliasReservation.collection.collectionName).insertMany(
      docs.map((d) => ({
        scope: linkAliasScope(DEFAULT_DOMAIN_ID),
        alias: d.alias,
        state: 'taken',
        createdAt: new Date(),
      })),
      { ordered: false },
    );
    await db.collection(Link.collection.collectionName).insertMany(docs, { ordered: false });
    await db
      .collection<{ _id: string; clicks: number }>(VisitTotal.collection.collectionName)
      .insertMany(
        docs.map((d) => ({ _id: `link:${d.id}`, clicks: d.clicks })),
        { ordered: false },
      );
    if (!first) first = top - n + 1;
    last = top;
    done += n;
    onBatch?.(done);
  }
  return { first, last };
}
