import { randomInt } from 'node:crypto';
import { conflict, validation } from '../shared/errors/app-error';
import { AliasReservation } from './alias.model';
import { isDuplicateKeyError } from '../shared/db/duplicate-key';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const GENERATED_ALIAS_LENGTH = 7;
export const CUSTOM_ALIAS_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;
const MAX_ATTEMPTS = 8;

/**
 * First path segments the service itself answers on the public side. Express matches paths
 * case-insensitively, so `API` would be shadowed too: the check ignores case.
 */
export const RESERVED_ALIASES: ReadonlySet<string> = new Set([
  'api',
  // The web dashboard.
  'app',
  'qr',
  's',
  'r',
  'u',
  'b',
  'healthz',
  'readyz',
  'metrics',
  'docs',
]);

export function isReservedAlias(alias: string): boolean {
  return RESERVED_ALIASES.has(alias.toLowerCase());
}

/** 62^7 (about 3.5e12) values drawn from the CSPRNG: neighbours in time share nothing. */
export function randomAlias(length = GENERATED_ALIAS_LENGTH): string {
  let alias = '';
  for (let i = 0; i < length; i += 1) alias += ALPHABET[randomInt(ALPHABET.length)];
  return alias;
}

/** A pending claim older than this was left by a crashed request (a store takes milliseconds). */
export const STALE_CLAIM_MS = 5 * 60_000;

export interface AliasClaim {
  scope: string;
  alias: string;
}

export interface AliasOptions {
  refuseReserved: boolean;
  /** Whether a stored record holds the alias (a stale claim whose record got stored is kept). */
  inUse(alias: string): Promise<boolean>;
}

/** Claims the alias in its scope (pending until confirmed); false when it is or was taken. */
async function reserve(scope: string, alias: string, options: AliasOptions): Promise<boolean> {
  try {
    await AliasReservation.create({ scope, alias, state: 'pending', claimedAt: new Date() });
    return true;
  } catch (err) {
    if (!isDuplicateKeyError(err)) throw err;
  }
  const stale = await AliasReservation.findOne({
    scope,
    alias,
    state: 'pending',
    claimedAt: { $lt: new Date(Date.now() - STALE_CLAIM_MS) },
  }).lean();
  if (!stale) return false;
  // The request that claimed it stored its record, then died before confirming: taken for good.
  if (await options.inUse(alias)) {
    await confirmAlias(scope, alias);
    return false;
  }
  // Compare-and-set on the claim time: of two requests reclaiming it, one wins.
  const { matchedCount } = await AliasReservation.updateOne(
    { scope, alias, state: 'pending', claimedAt: stale.claimedAt },
    { $set: { claimedAt: new Date() } },
  );
  return matchedCount === 1;
}

/**
 * Reserves the caller's custom alias (422 when reserved, 409 when used in the scope) or a fresh
 * random one, retrying the rare collision. The claim is pending: store the record holding it
 * with `holdAlias`, which confirms it, or releases it when the store fails.
 */
export async function allocateAlias(
  scope: string,
  custom: string | undefined,
  options: AliasOptions,
): Promise<string> {
  if (custom !== undefined) {
    if (options.refuseReserved && isReservedAlias(custom)) {
      throw validation(`alias ${custom} is reserved`, 'custom');
    }
    if (!(await reserve(scope, custom, options)))
      throw conflict(`alias ${custom} is already taken`);
    return custom;
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const alias = randomAlias();
    if (options.refuseReserved && isReservedAlias(alias)) continue;
    if (await reserve(scope, alias, options)) return alias;
  }
  throw new Error(`no free alias found in scope ${scope} after ${MAX_ATTEMPTS} attempts`);
}

/** Marks a claim taken for good (also before deleting its record, so it stays a tombstone). */
export async function confirmAlias(scope: string, alias: string): Promise<void> {
  await AliasReservation.updateOne(
    { scope, alias },
    { $set: { state: 'taken' }, $unset: { claimedAt: 1 } },
  );
}

/** Gives back pending claims whose record was not stored (a confirmed one is never released). */
export async function releaseAliases(claims: readonly AliasClaim[]): Promise<void> {
  await Promise.all(
    claims.map(({ scope, alias }) =>
      AliasReservation.deleteOne({ scope, alias, state: 'pending' }).catch(() => undefined),
    ),
  );
}

/**
 * Runs the write that stores the record holding a freshly claimed alias, then confirms the claim;
 * when the write fails, the claim is released (a crash in between leaves it pending, and stale).
 */
export async function holdAlias<T>(
  claims: readonly AliasClaim[],
  write: () => Promise<T>,
): Promise<T> {
  let result: T;
  try {
    result = await write();
  } catch (err) {
    await releaseAliases(claims);
    throw err;
  }
  await Promise.all(claims.map(({ scope, alias }) => confirmAlias(scope, alias)));
  return result;
}

export function linkAliasScope(domainId: number): string {
  return `links:${domainId}`;
}
