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

/** Claims the alias in its scope for good; false when it is (or ever was) taken. */
async function reserve(scope: string, alias: string): Promise<boolean> {
  try {
    await AliasReservation.create({ scope, alias });
    return true;
  } catch (err) {
    if (isDuplicateKeyError(err)) return false;
    throw err;
  }
}

/**
 * Reserves the caller's custom alias (422 when reserved, 409 when ever used in the scope) or a
 * fresh random one, retrying the rare collision.
 */
export async function allocateAlias(
  scope: string,
  custom: string | undefined,
  options: { refuseReserved: boolean },
): Promise<string> {
  if (custom !== undefined) {
    if (options.refuseReserved && isReservedAlias(custom)) {
      throw validation(`alias ${custom} is reserved`, 'custom');
    }
    if (!(await reserve(scope, custom))) throw conflict(`alias ${custom} is already taken`);
    return custom;
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const alias = randomAlias();
    if (options.refuseReserved && isReservedAlias(alias)) continue;
    if (await reserve(scope, alias)) return alias;
  }
  throw new Error(`no free alias found in scope ${scope} after ${MAX_ATTEMPTS} attempts`);
}

export function linkAliasScope(domainId: number): string {
  return `links:${domainId}`;
}
