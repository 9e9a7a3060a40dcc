/**
 * What the server hands the Keys, Team and Audit pages and the account switcher (web/app, whose
 * types.d.ts imports these). Types only, and no imports, so the browser's type check never reads
 * server modules.
 */

/** A member's role in an account (src/team/membership.model.ts's ROLES, checked there). */
export type MemberRole = 'viewer' | 'editor' | 'admin';

/** An account the signed-in user may act in: its owner's id and username, and their role. */
export interface AccountChoice {
  id: number;
  username: string;
  role: MemberRole;
}

export interface KeysPageData {
  /** `<resource>` of the `<resource>:read` / `<resource>:write` scopes, in the API's order. */
  resources: string[];
  /** The longest rotation grace the API accepts, in seconds. */
  maxGrace: number;
}

export interface TeamPageData {
  roles: Array<{ value: MemberRole; help: string }>;
  /** The account the dashboard acts in while the Team page (always the user's own) shows. */
  acting: AccountChoice | null;
}

export interface AuditPageData {
  /** Whose log this is: the account the dashboard acts in. */
  account: { id: number; username: string };
  /** Record types a filter can name. */
  types: string[];
  /** Usernames of the people who may write in the account, by user id (owner and members). */
  people: Record<string, string>;
}
