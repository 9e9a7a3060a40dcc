import { AuditEntry } from './audit.model';
import type { AuditQuery } from './audit.schemas';

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
  const [items, total] = await Promise.all([
    AuditEntry.find(filter)
      .sort({ at: -1, _id: -1 })
      .skip((query.page - 1) * query.limit)
      .limit(query.limit)
      .lean(),
    AuditEntry.countDocuments(filter),
  ]);
  return { items, total };
}
