import { unassignEverywhere } from '../channels/channels.service';
import { allocateAlias, confirmAlias, holdAlias } from '../links/aliases';
import { deleteOwned, listOwned } from '../shared/db/owned';
import type { PageQuery } from '../shared/http/pagination';
import { nextId } from '../shared/ids/counter.model';
import { Bio, type BioRecord } from './bio.model';
import type { BioCreate } from './bio.schemas';

/** Bio aliases live under `/b/`, so they have a scope of their own and no reserved words. */
const BIO_ALIAS_SCOPE = 'bio';

export async function listBioPages(userId: number, query: PageQuery) {
  return listOwned(Bio, userId, query);
}

export async function createBioPage(userId: number, input: BioCreate): Promise<BioRecord> {
  const alias = await allocateAlias(BIO_ALIAS_SCOPE, input.alias, {
    refuseReserved: false,
    inUse: async (a) => (await Bio.exists({ alias: a })) !== null,
  });
  const doc = await holdAlias([{ scope: BIO_ALIAS_SCOPE, alias }], async () =>
    Bio.create({
      id: await nextId('bio'),
      userId,
      alias,
      name: input.name,
      links: input.links,
      createdAt: new Date(),
    }),
  );
  return doc.toObject<BioRecord>();
}

/** Deletes the page and takes it out of every channel; its alias is never handed out again. */
export async function deleteBioPage(userId: number, id: number): Promise<void> {
  const page = await Bio.findOne({ id, userId }).lean<BioRecord>();
  if (page) await confirmAlias(BIO_ALIAS_SCOPE, page.alias);
  await deleteOwned(Bio, userId, id, 'Bio page');
  await unassignEverywhere('bio', id);
}

export async function findBioPage(alias: string): Promise<BioRecord | null> {
  return Bio.findOne({ alias }).lean<BioRecord>();
}
