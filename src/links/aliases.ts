import { randomInt } from 'node:crypto';
import { AppError, conflict, validation } from '../shared/errors/app-error';
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

/** The claims' aliases by scope, so a batch costs one write per scope rather than one per alias. */
function byScope(claims: readonly AliasClaim[]): Map<string, string[]> {
  const scopes = new Map<string, string[]>();
  for (const { scope, alias } of claims) scopes.set(scope, [...(scopes.get(scope) ?? []), alias]);
  return scopes;
}

/** Gives back pending claims whose record was not stored (a confirmed one is never released). */
export async function releaseAliases(claims: readonly AliasClaim[]): Promise<void> {
  await Promise.all(
    [...byScope(claims)].map(([scope, aliases]) =>
      AliasReservation.deleteMany({ scope, alias: { $in: aliases }, state: 'pending' }).catch(
        () => undefined,
      ),
    ),
  );
}

/** `confirmAlias` for many claims: one write per scope. */
export async function confirmAliases(claims: readonly AliasClaim[]): Promise<void> {
  await Promise.all(
    [...byScope(claims)].map(([scope, aliases]) =>
      AliasReservation.updateMany(
        { scope, alias: { $in: aliases } },
        { $set: { state: 'taken' }, $unset: { claimedAt: 1 } },
      ),
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
  await confirmAliases(claims);
  return result;
}

/** A batch item's alias conflict, naming the field as bulk results do. */
export function aliasTaken(alias: string): AppError {
  return new AppError(409, 'conflict', `alias ${alias} is already taken`, { field: 'custom' });
}

/** One alias wanted in a batch: the custom one, or a fresh random one when `custom` is absent. */
export interface AliasRequest {
  custom?: string;
  /** When the custom alias is taken, hand out a fresh random one instead of failing. */
  renameIfTaken?: boolean;
}

/**
 * Indexes of the documents an unordered insertMany refused as duplicates. MongoDB lists them in
 * `writeErrors`; the embedded engine refuses the whole batch instead (nothing inserted, no list),
 * so then the ones already reserved are read back and the others inserted again.
 */
async function refusedAsDuplicates(
  err: unknown,
  scope: string,
  aliases: readonly string[],
): Promise<Set<number>> {
  const e = err as { code?: number; writeErrors?: unknown; result?: { insertedCount?: number } };
  const writeErrors = Array.isArray(e.writeErrors) ? e.writeErrors : [];
  if (writeErrors.length) {
    const refused = new Set<number>();
    for (const w of writeErrors as Array<{ index?: number; code?: number }>) {
      if (w.code !== 11000 || typeof w.index !== 'number') throw err;
      refused.add(w.index);
    }
    return refused;
  }
  if (e.code !== 11000 || e.result?.insertedCount !== 0) throw err;
  const held = await AliasReservation.find({ scope, alias: { $in: [...aliases] } }).lean();
  const taken = new Set(held.map((h) => h.alias));
  if (!taken.size) throw err;
  return new Set(aliases.flatMap((a, i) => (taken.has(a) ? [i] : [])));
}

/**
 * Claims every alias with one write, pending as `allocateAlias`'s claims are (store the records with
 * `holdAlias`); false where one was taken (earlier, or twice in the batch).
 */
async function reserveMany(scope: string, aliases: readonly string[]): Promise<boolean[]> {
  const claimed = aliases.map((a, i) => aliases.indexOf(a) === i);
  let pending = aliases.flatMap((alias, i) => (claimed[i] ? [{ i, alias }] : []));
  while (pending.length) {
    const now = new Date();
    const docs = pending.map(({ alias }) => ({
      scope,
      alias,
      createdAt: now,
      state: 'pending',
      claimedAt: now,
    }));
    try {
      await AliasReservation.collection.insertMany(docs, { ordered: false });
      return claimed;
    } catch (err) {
      const refused = await refusedAsDuplicates(
        err,
        scope,
        pending.map((p) => p.alias),
      );
      for (const k of refused) claimed[(pending[k] as { i: number }).i] = false;
      // On MongoDB the others are in; on the embedded engine nothing is, so they go again.
      if ((err as { writeErrors?: unknown[] }).writeErrors?.length) return claimed;
      pending = pending.filter((_, k) => !refused.has(k));
    }
  }
  return claimed;
}

/**
 * `allocateAlias` for a batch: one reservation write for all of them (plus one more round per
 * rare random collision), instead of one per alias. Each answer is the alias or the error that
 * `allocateAlias` would have thrown for it.
 */
export async function allocateAliases(
  scope: string,
  requests: readonly AliasRequest[],
  options: { refuseReserved: boolean },
): Promise<Array<string | AppError>> {
  const refused = (alias: string) => options.refuseReserved && isReservedAlias(alias);
  const fresh = () => {
    let alias = randomAlias();
    while (refused(alias)) alias = randomAlias();
    return alias;
  };
  const answers: Array<string | AppError | undefined> = requests.map((r) =>
    r.custom !== undefined && refused(r.custom) && !r.renameIfTaken
      ? validation(`alias ${r.custom} is reserved`, 'custom')
      : undefined,
  );
  let pending = requests.flatMap((r, i) =>
    answers[i] === undefined
      ? [{ i, alias: r.custom !== undefined && !refused(r.custom) ? r.custom : undefined }]
      : [],
  );
  for (let attempt = 0; pending.length && attempt <= MAX_ATTEMPTS; attempt += 1) {
    const tried = pending.map((p) => p.alias ?? fresh());
    const claimed = await reserveMany(scope, tried);
    const next: typeof pending = [];
    pending.forEach((p, k) => {
      const request = requests[p.i] as AliasRequest;
      if (claimed[k]) answers[p.i] = tried[k];
      else if (p.alias !== undefined && !request.renameIfTaken) answers[p.i] = aliasTaken(p.alias);
      else next.push({ i: p.i, alias: undefined });
    });
    pending = next;
  }
  if (pending.length) throw new Error(`no free alias found in scope ${scope}`);
  return answers as Array<string | AppError>;
}

export function linkAliasScope(domainId: number): string {
  return `links:${domainId}`;
}
