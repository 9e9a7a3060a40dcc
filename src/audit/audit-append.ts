import type { Request } from 'express';
import type { AppDeps } from '../deps';
import { isOnlyDuplicateKeys } from '../shared/db/duplicate-key';
import { groupCommit } from '../shared/db/group-commit';
import { AuditEntry, type AuditEntryRecord } from './audit.model';

const DAY_MS = 86_400_000;

export interface AuditEvent {
  /** The account and the user it concerns (the same for events of one's own sign-in). */
  userId: number;
  /** What happened, named like a route: `/app/signin/code`. */
  route: string;
  type: string;
  changes?: Record<string, unknown>;
}

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

/**
 * Appends one entry; the entries of writes answered together go out in one insert (a group
 * commit: on the embedded engine an insert costs per call, and every API write appends one).
 * Each entry is cast and validated once, as its document is made; the valid ones go to the
 * driver's insert (mongoose's `insertMany` would make and validate every document again: a
 * second pass over mongoose's document code on every QR create, cold in the first batch after a
 * start). An entry the schema refuses fails alone. When the shared insert fails, each entry is
 * tried alone, so one bad entry loses no other.
 */
export const appendAuditEntry = groupCommit<AuditEntryRecord, true>(async (entries) => {
  // Ids are drawn here, so an entry the shared insert stored is recognised when tried alone.
  const checked = await Promise.all(
    entries.map(async (entry) => {
      const doc = new AuditEntry(entry);
      try {
        await doc.validate();
      } catch (err) {
        return asError(err);
      }
      return doc.toObject();
    }),
  );
  const docs = checked.filter((c) => !(c instanceof Error));
  try {
    if (docs.length > 0) await AuditEntry.collection.insertMany(docs, { ordered: false });
    return checked.map((c) => (c instanceof Error ? c : (true as const)));
  } catch {
    return Promise.all(
      checked.map((c) =>
        c instanceof Error
          ? c
          : AuditEntry.collection.insertOne(c).then(
              () => true as const,
              (err: unknown) => (isOnlyDuplicateKeys(err) ? (true as const) : asError(err)),
            ),
      ),
    );
  }
});

/**
 * Appends an event no write middleware sees (it happens before a session is open, such as a
 * recovery code used to sign in), with the fields `auditWrites` gives every write.
 */
export async function appendAuditEvent(
  deps: Pick<AppDeps, 'config' | 'logger'>,
  req: Request,
  event: AuditEvent,
): Promise<void> {
  const at = new Date();
  try {
    await AuditEntry.create({
      at,
      expiresAt: new Date(at.getTime() + deps.config.auditRetentionDays * DAY_MS),
      accountId: event.userId,
      actorId: event.userId,
      keyId: null,
      via: 'session',
      method: req.method,
      route: event.route,
      type: event.type,
      recordId: null,
      changes: event.changes ?? {},
      ip: req.ip ?? null,
    });
  } catch (err) {
    (req.log ?? deps.logger).error(
      { err, route: event.route },
      'could not append to the audit log',
    );
  }
}
