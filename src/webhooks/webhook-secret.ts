import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

export const SIGNATURE_HEADER = 'Linkqr-Signature';

/** 256 random bits; the prefix tells humans and secret scanners what it is. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The worker must sign with the secret itself, so it cannot be hashed: it is stored encrypted
 * with AES-256-GCM under WEBHOOK_SECRET_KEY (`v1.iv.tag.ciphertext`, base64url).
 */
export function encryptSecret(secret: string, key: Buffer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'))].join('.');
}

export function decryptSecret(stored: string, key: Buffer): string {
  const [version, iv, tag, data] = stored.split('.');
  if (version !== 'v1' || !iv || !tag || !data) {
    throw new Error('unknown webhook secret format');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const plain = Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]);
  return plain.toString('utf8');
}

/** Names a WEBHOOK_SECRET_KEY without revealing it: a MAC of a fixed text under the key. */
export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key)
    .update('linkqr webhook secret key id')
    .digest('hex')
    .slice(0, 16);
}

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`, as receivers verify it. */
export function signatureHeader(secret: string, body: string, unixSeconds: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex');
  return `t=${unixSeconds},v1=${mac}`;
}
