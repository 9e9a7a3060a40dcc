import type { Role } from '../team/membership.model';
import type { Scope, ScopeResource } from './scopes';

/** What an editor may write beyond reading; an admin writes everything but what follows. */
const EDITOR_WRITES: readonly ScopeResource[] = ['links', 'qr', 'campaigns', 'channels'];
/** Never a member's, whatever the role: the owner's keys, and the owner's own account (team, password). */
const OWNER_ONLY: readonly ScopeResource[] = ['keys', 'account'];

/**
 * Whether a member with `role` may use a route needing `scope`, acting in someone else's account
 * (their key's scopes apply too). A viewer reads, an editor also writes links, QR codes,
 * campaigns and channels, an admin does everything but the team, the account and its keys, and
 * reads the audit log (`account:read`).
 */
export function roleAllows(role: Role, scope: Scope): boolean {
  if (scope === '*') return false;
  const [resource, access] = scope.split(':') as [ScopeResource, 'read' | 'write'];
  if (role === 'admin') return scope === 'account:read' || !OWNER_ONLY.includes(resource);
  if (OWNER_ONLY.includes(resource)) return false;
  if (access === 'read') return true;
  return role === 'editor' && EDITOR_WRITES.includes(resource);
}
