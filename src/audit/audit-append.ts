import type { Request } from 'express';
import type { AppDeps } from '../deps';
import { AuditEntry } from './audit.model';

const DAY_MS = 86_400_000;

export interface AuditEvent {
  /** The account and the user it concerns (the same for events of one's own sign-in). */
  userId: number;
  /** What happened, named like a route: `/app/signin/code`. */
  route: string;
  type: string;
  changes?: Record<string, unknown>;
}

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
