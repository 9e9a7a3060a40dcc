import { formatDateTime, formatOptionalDateTime } from '../shared/format/dates';
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
