import { Router, type Request, type RequestHandler } from 'express';
import type { AppDeps } from '../deps';
import { forbidden, validation } from '../shared/errors/app-error';
import { loadGrant, membershipCacheFor, membershipCacheKey } from '../team/acting-account';
import { Membership, ROLES } from '../team/membership.model';
import { User } from '../users/user.model';
import { sessionUser, signedInUser } from './session-user';
import type { AccountChoice, MemberRole } from './team-view-types';

declare module 'express-session' {
  interface SessionData {
    /** The account the dashboard acts in (one the user is a member of); absent: their own. */
    account?: number;
  }
}

// The browser's copy of the roles must be the API's.
const _roles: readonly MemberRole[] = ROLES;
void _roles;

/** What the account switcher offers on a page: the accounts the user may act in, and the choice. */
export interface AccountSwitch {
  /** The user's own username (the switcher's first choice). */
  own: string;
  accounts: AccountChoice[];
  acting: AccountChoice | null;
  /** Where switching returns to: the page's section (a record of one account is not in another). */
  back: string;
}

const acting = new WeakMap<Request, AccountChoice>();
const switches = new WeakMap<Request, AccountSwitch>();

/** The account a dashboard page acts in: the switcher's choice, else the signed-in user's own. */
export function actingAccountId(req: Request): number {
  return acting.get(req)?.id ?? signedInUser(req).id;
}

export function actingAccount(req: Request): AccountChoice | null {
  return acting.get(req) ?? null;
}

/** The switcher of a page that shows it; undefined when the user belongs to no other account. */
export function accountSwitchOf(req: Request): AccountSwitch | undefined {
  return switches.get(req);
}

/** Accounts `userId` is a member of, oldest membership first, with their owners' usernames. */
async function accountsOf(userId: number): Promise<AccountChoice[]> {
  const memberships = await Membership.find({ memberId: userId }).sort({ id: 1 }).lean();
  if (!memberships.length) return [];
  const owners = await User.find({ id: { $in: memberships.map((m) => m.accountId) } }).lean();
  const nameOf = new Map(owners.map((u) => [u.id, u.username]));
  return memberships.flatMap((m) => {
    const username = nameOf.get(m.accountId);
    return username ? [{ id: m.accountId, username, role: m.role }] : [];
  });
}

/** `/app/links/7` -> `/app/links`: the section a page belongs to. */
function sectionOf(path: string): string {
  return path.replace(/^(\/app\/(?:links|qr))\/\d+$/, '$1');
}

/**
 * Resolves the session's chosen account for the pages, checked on every request against the
 * membership (cached, and dropped in every process when it changes): a removed member, or one
 * whose owner's plan ended, is back in their own account at the next page. GET pages also learn
 * what the switcher offers.
 */
export function resolveActingAccount(deps: AppDeps): RequestHandler {
  const memberships = membershipCacheFor(deps);
  return async (req, _res, next) => {
    const user = sessionUser(req);
    if (!user) return next();
    const chosen = req.session.account;
    if (chosen !== undefined) {
      const grant = await memberships.get(membershipCacheKey(chosen, user.id), () =>
        loadGrant(chosen, user.id),
      );
      const ended = grant?.owner.expires && grant.owner.expires.getTime() <= Date.now();
      if (!grant || ended) delete req.session.account;
      else acting.set(req, { id: chosen, username: grant.owner.username, role: grant.role });
    }
    if (req.method === 'GET') {
      const accounts = await accountsOf(user.id);
      if (accounts.length || acting.has(req)) {
        switches.set(req, {
          own: user.username,
          accounts,
          acting: acting.get(req) ?? null,
          back: sectionOf(`/app${req.path}`),
        });
      }
    }
    next();
  };
}

/** Only a page of the dashboard: never another site (no open redirect). */
function safeBack(value: unknown): string {
  return typeof value === 'string' && /^\/app(\/[A-Za-z0-9/_-]*)?$/.test(value)
    ? value
    : '/app/links';
}

/**
 * `POST /app/switch` (`account`: an owner's id, or empty for the user's own): the pages and the
 * calls they make (`Linkqr-Account`) act in that account from now on, in this session only.
 */
export function accountSwitchRouter(deps: AppDeps): Router {
  const memberships = membershipCacheFor(deps);
  const router = Router();
  router.post('/switch', async (req, res) => {
    const user = signedInUser(req);
    const body = req.body as Record<string, unknown>;
    const raw = typeof body.account === 'string' ? body.account.trim() : '';
    if (raw === '' || raw === String(user.id)) {
      delete req.session.account;
      return res.redirect(303, safeBack(body.back));
    }
    if (!/^[1-9]\d{0,14}$/.test(raw)) throw validation('account must be the id of an account');
    const id = Number(raw);
    const grant = await memberships.get(membershipCacheKey(id, user.id), () =>
      loadGrant(id, user.id),
    );
    if (!grant) throw forbidden(`You are not a member of account ${id}`);
    if (grant.owner.expires && grant.owner.expires.getTime() <= Date.now()) {
      throw forbidden(`The plan of account ${id} has ended`);
    }
    req.session.account = id;
    res.redirect(303, safeBack(body.back));
  });
  return router;
}
