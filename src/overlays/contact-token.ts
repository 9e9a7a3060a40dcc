import { timingSafeEqual } from 'node:crypto';

/** How long a contact form stays valid after its page was served. */
export const CONTACT_TOKEN_TTL_MS = 2 * 60 * 60 * 1000;

/** The deployment's keyed hash (the visits module's HMAC over its secret salt). */
export type KeyedHash = (text: string) => string;

function signature(hash: KeyedHash, linkId: number, overlayId: number, issuedAt: number): string {
  return hash(`contact-form\n${linkId}\n${overlayId}\n${issuedAt}`);
}

/**
 * The per-page token of a contact overlay's form: when the page was served and a keyed hash
 * binding that moment to the link and the overlay, so a form can only be posted from a page this
 * service rendered, for that link, within the TTL.
 */
export function issueContactToken(
  hash: KeyedHash,
  linkId: number,
  overlayId: number,
  now: number,
): string {
  return `${now.toString(36)}.${signature(hash, linkId, overlayId, now)}`;
}

export function contactTokenValid(
  hash: KeyedHash,
  token: string,
  linkId: number,
  overlayId: number,
  now: number,
): boolean {
  const match = /^([0-9a-z]{1,12})\.([A-Za-z0-9_-]{10,64})$/.exec(token);
  if (!match) return false;
  const issuedAt = parseInt(match[1] ?? '', 36);
  if (!Number.isSafeInteger(issuedAt) || issuedAt > now || now - issuedAt > CONTACT_TOKEN_TTL_MS)
    return false;
  const expected = Buffer.from(signature(hash, linkId, overlayId, issuedAt));
  const given = Buffer.from(match[2] ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
