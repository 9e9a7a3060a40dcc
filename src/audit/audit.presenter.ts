import Joi from 'joi';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, record } from '../shared/http/responses';
import type { AuditEntryRecord } from './audit.model';

export function presentAuditEntry(entry: AuditEntryRecord & { _id: { toString(): string } }) {
  return {
    id: entry._id.toString(),
    date: formatDateTime(entry.at),
    account: entry.accountId,
    user: entry.actorId,
    key: entry.keyId ?? null,
    via: entry.via,
    method: entry.method,
    route: entry.route,
    type: entry.type,
    record: entry.recordId ?? null,
    changes: (entry.changes ?? {}) as Record<string, unknown>,
    ip: entry.ip ?? null,
  };
}

/** What `presentAuditEntry` writes. */
export const auditEntryJson = record({
  id: Joi.string(),
  date: dateTimeJson,
  account: Joi.number().integer().description('the account written to'),
  user: Joi.number().integer().description('who wrote: the owner or a member'),
  key: Joi.number().integer().allow(null).description('the key used (0: default); null: dashboard'),
  via: Joi.string().valid('key', 'session'),
  method: Joi.string().example('PUT'),
  route: Joi.string().example('/api/url/:id/update'),
  type: Joi.string().example('link'),
  record: Joi.number().integer().allow(null),
  changes: Joi.object()
    .unknown(true)
    .description('the fields set, secrets shown as "[secret]"')
    .example({ url: 'https://example.com/new' }),
  ip: Joi.string().allow(null),
});
