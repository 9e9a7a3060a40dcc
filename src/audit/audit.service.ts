import { Types } from 'mongoose';
import { validation } from '../shared/errors/app-error';
import { skipFor } from '../shared/http/pagination';
import { AuditEntry } from './audit.model';
import type { AuditQuery } from './audit.schemas';

/**
 * The entries after `after` in the list's order (at, then _id, newest first): keyset paging on
 * {accountId, at, _id}, so a deep page costs what the first does.
 */
async function keysetAfter(accountId: number, after: string): Promise<Record<string, unknown>> {
  const _id = new Types.ObjectId(after);
  const anchor = await AuditEntry.findOne({ accountId, _id }).lean();
  if (!anchor)
    throw validation(`after: you have no audit entry ${after}; list again without after`, 'after');
  return { $or: [{ at: { $lt: anchor.at } }, { at: anchor.at, _id: { $lt: _id } }] };
}

/** An account's audit entries, newest first, narrowed by the query's filters. */
export async function listAuditEntries(accountId: number, query: AuditQuery) {
  const filter: Record<string, unknown> = { accountId };
  if (query.from || query.to) {
    filter.at = {
      ...(query.from ? { $gte: query.from } : {}),
      ...(query.to ? { $lte: query.to } : {}),
    };
  }
  if (query.type) filter.type = query.type;
  if (query.id !== undefined) filter.recordId = query.id;
  const page =
    query.after === undefined
      ? filter
      : { $and: [filter, await keysetAfter(accountId, query.after)] };
  const [items, total] = await Promise.all([
    AuditEntry.find(page)
      .sort({ at: -1, _id: -1 })
      .skip(query.after === undefined ? skipFor({ page: query.page, limit: query.limit }) : 0)
      .limit(query.limit)
      .lean(),
    AuditEntry.countDocuments(filter),
  ]);
  return { items, total };
}
