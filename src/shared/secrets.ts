import { hash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * OWASP's scrypt parameters for passwords (N=2^17, r=8, p=1: 128 MiB and a few hundred ms a
 * hash). Hashes stored with an older N (2^14 before issue 29) still verify: the parameters are
 * read from each hash.
 */
export const PASSWORD_SCRYPT = { N: 2 ** 17, r: 8, p: 1, keylen: 32 } as const;
let cost: { N: number; r: number; p: number; keylen: number } = PASSWORD_SCRYPT;

/**
 * The test suite hashes hundreds of passwords on shared cores: it lowers N for speed through
 * this, and only there (test/support/root-hooks.ts); the service always uses PASSWORD_SCRYPT.
 */
export function useScryptCostForTests(N: number): void {
  cost = { ...PASSWORD_SCRYPT, N };
}

/** Room for N up to 2^18 with r=8 (256 MiB); Node's default cap (32 MiB) stops at 2^14. */
const maxmemFor = (N: number, r: number) => 128 * N * r + 16 * 1024 * 1024;

function scryptAsync(
  password: string,
  salt: Buffer,
  keylen: number,
  options: ScryptOptions,
): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Hashes a password with scrypt and a random salt: `scrypt$N$r$p$salt$hash` (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p, keylen } = cost;
  const key = await scryptAsync(password, salt, keylen, { N, r, p, maxmem: maxmemFor(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const [N, R, P] = [Number(n), Number(r), Number(p)];
  // A stored hash names its own cost: refuse one that would take more memory than ours can.
  if (!(N >= 2 && N <= 2 ** 18 && R >= 1 && R <= 16 && P >= 1 && P <= 4)) return false;
  const key = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N,
    r: R,
    p: P,
    maxmem: maxmemFor(N, R),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

export const API_KEY_PREFIX = 'lqr_';
export const API_KEY_PATTERN = /^lqr_[A-Za-z0-9_-]{43}$/;

/** 256 random bits; the prefix lets secret scanners and humans recognise a linkqr key. */
export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * Keys are high-entropy, so a fast hash is enough to make the stored value useless to a thief,
 * and it lets the key be found by its hash in one indexed lookup. Every API request hashes its key:
 * the one-shot `hash` costs a third of a `createHash` object's update and digest.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}
