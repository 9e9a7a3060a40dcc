import Joi from 'joi';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson, record } from '../shared/http/responses';
import type { UserRecord } from '../users/user.model';
import { DEFAULT_KEY_ID } from './callers';
import type { ApiKeyRecord } from './key.model';
import { ALL_SCOPES } from '../auth/scopes';

/** The key a rotation replaced, while it still works. */
function previousOf(prefix: string | null | undefined, until: Date | null | undefined, now: Date) {
  if (!until || until.getTime() <= now.getTime()) return null;
  return { prefix: prefix ?? null, until: formatDateTime(until) };
}

export function presentKey(key: ApiKeyRecord, now: Date) {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    created: formatDateTime(key.created),
    lastused: formatOptionalDateTime(key.lastused),
    expires: formatOptionalDateTime(key.expires),
    previous: previousOf(key.previousPrefix, key.previousUntil, now),
  };
}

/** The key on the user record, the one `user:create` printed, as a key with every scope. */
export function presentDefaultKey(user: UserRecord, now: Date) {
  return {
    id: DEFAULT_KEY_ID,
    name: 'default',
    prefix: user.apiKeyPrefix ?? null,
    scopes: ['*'],
    created: formatDateTime(user.registered),
    lastused: formatOptionalDateTime(user.apiKeyLastUsed),
    expires: null,
    previous: previousOf(user.previousApiKeyPrefix, user.previousApiKeyUntil, now),
  };
}

/** What `presentKey` writes. */
export const keyJson = record({
  id: Joi.number().integer().min(0).example(7).description('0 is the default key'),
  name: Joi.string().example('reporting script'),
  prefix: Joi.string()
    .allow(null)
    .example('lqr_Ab3dE9xQ')
    .description('the first characters of the key (null for a default key made before prefixes)'),
  scopes: Joi.array().items(Joi.string().valid(...ALL_SCOPES)),
  created: dateTimeJson,
  lastused: dateTimeJson.allow(null).description('updated at most once a minute'),
  expires: dateTimeJson.allow(null),
  previous: record({ prefix: Joi.string().allow(null), until: dateTimeJson })
    .allow(null)
    .description('the key the last rotation replaced, and when it stops working'),
});
