import { Router } from 'express';
import { recordTypeOf } from '../audit/audit-summary';
import { SCOPE_RESOURCES } from '../auth/scopes';
import { MAX_GRACE_SECONDS } from '../keys/keys.schemas';
import { Membership } from '../team/membership.model';
import { User } from '../users/user.model';
import { actingAccount } from './acting';
import { sendView } from './pages/respond';
import { signedInUser } from './session-user';
import type { AuditPageData, KeysPageData, MemberRole, TeamPageData } from './team-view-types';

const ROLE_HELP: Record<MemberRole, string> = {
  viewer: 'reads everything in your account, changes nothing',
  editor: 'also creates, changes and deletes links, QR codes, campaigns and channels',
  admin: 'changes everything but your team, your account and your keys; reads the audit log',
};

/** The record types the API's writes name (`/url/:id/update` -> `link`), for the audit filter. */
function auditTypes(apiRouteTable: ReadonlySet<string>): string[] {
  const types = new Set<string>();
  for (const route of apiRouteTable) {
    const [method, path] = route.split(' ');
    if (method && path && !['GET', 'HEAD', 'OPTIONS'].includes(method)) {
      types.add(recordTypeOf(path));
    }
  }
  types.delete('dashboard');
  return [...types].sort();
}

/** Who may write in `accountId`: its owner and members, by id. */
async function peopleOf(accountId: number): Promise<Record<string, string>> {
  const members = await Membership.find({ accountId }).lean();
  const users = await User.find({ id: { $in: [accountId, ...members.map((m) => m.memberId)] } })
    .lean()
    .exec();
  return Object.fromEntries(users.map((u) => [String(u.id), u.username]));
}

/**
 * The Keys, Team and Audit log pages (filled by web/app/keys.js, team.js and audit.js through the
 * API). Keys and the team are always the user's own; the audit log is the acting account's.
 */
export function teamPages(apiRouteTable: ReadonlySet<string>): Router {
  const router = Router();
  const types = auditTypes(apiRouteTable);

  router.get('/keys', (req, res) => {
    const data: KeysPageData = { resources: [...SCOPE_RESOURCES], maxGrace: MAX_GRACE_SECONDS };
    sendView(req, res, 'API keys', 'keys', data);
  });

  router.get('/team', (req, res) => {
    const roles = (Object.keys(ROLE_HELP) as MemberRole[]).map((value) => ({
      value,
      help: ROLE_HELP[value],
    }));
    const data: TeamPageData = { roles, acting: actingAccount(req) };
    sendView(req, res, 'Team', 'team', data);
  });

  router.get('/audit', async (req, res) => {
    const user = signedInUser(req);
    const acting = actingAccount(req);
    // The names of the account's people only for those the API lets read its log.
    const mayRead = !acting || acting.role === 'admin';
    const account = acting ?? { id: user.id, username: user.username };
    const data: AuditPageData = {
      account: { id: account.id, username: account.username },
      types,
      people: mayRead ? await peopleOf(account.id) : {},
    };
    sendView(req, res, 'Audit log', 'audit', data);
  });

  return router;
}
