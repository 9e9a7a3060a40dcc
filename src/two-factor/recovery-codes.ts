import { createHash, randomBytes } from 'node:crypto';

export const RECOVERY_CODE_COUNT = 10;
/** Crockford's base32: no i, l, o or u to misread when copied from paper. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const GROUPS = 4;
const GROUP_LENGTH = 4;

/** A recovery code: 16 characters of 5 random bits each (80 bits), as `xxxx-xxxx-xxxx-xxxx`. */
export function newRecoveryCode(): string {
  const bytes = randomBytes(GROUPS * GROUP_LENGTH);
  const chars = [...bytes].map((b) => ALPHABET[b & 31] as string).join('');
  return (chars.match(new RegExp(`.{${GROUP_LENGTH}}`, 'g')) ?? []).join('-');
}

/**
 * The code as typed, read forgivingly (case, spaces, dashes, and Crockford's look-alikes), or
 * undefined when it cannot be one.
 */
export function normaliseRecoveryCode(input: string): string | undefined {
  const plain = input.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');
  const length = GROUPS * GROUP_LENGTH;
  if (plain.length !== length || [...plain].some((c) => !ALPHABET.includes(c))) return undefined;
  return plain;
}

/**
 * 80 random bits need no slow hash to be useless to a thief of the database (as API keys); the
 * user id in the input keeps one user's hashes from matching another's.
 */
export function hashRecoveryCode(userId: number, normalised: string): string {
  return createHash('sha256').update(`${userId}:${normalised}`).digest('hex');
}
