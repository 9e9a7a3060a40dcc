import Joi from 'joi';
import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record } from '../shared/http/responses';
import type { UserRecord } from '../users/user.model';

/** The spec's Account (4.3): never the password hash nor the key hash. */
export function presentAccount(user: UserRecord) {
  return {
    id: user.id,
    email: user.email,
    username: user.username,
    avatar: user.avatar,
    status: user.status,
    expires: formatOptionalDateTime(user.expires),
    registered: formatDateTime(user.registered),
  };
}

export const accountFields = {
  id: idJson,
  email: Joi.string().email({ tlds: false }).example('ada@example.com'),
  username: Joi.string().example('ada'),
  avatar: Joi.string().allow('', null),
  status: Joi.string().description('the plan').example('free'),
  expires: dateTimeJson.allow(null),
  registered: dateTimeJson,
};

export const accountJson = record(accountFields);
