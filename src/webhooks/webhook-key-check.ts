import { createHmac } from 'node:crypto';
import type { Config } from '../config';
import type { Logger } from '../shared/infra/logger';
import { secretFile } from '../shared/infra/runtime-secrets';
import { Setting } from '../visits/visit.model';
import { Webhook, type WebhookRecord } from './webhook.model';
import { decryptSecret } from './webhook-secret';

const KEY_ID_SETTING = 'webhookSecretKeyId';
/** Listed by id in the log line; the count per user is always whole. */
const IDS_SHOWN_PER_USER = 20;

export interface UnsignableWebhooks {
  /** Why none of them can sign. */
  reason: 'no key' | 'other key';
  total: number;
  users: Array<{ userId: number; count: number; ids: number[] }>;
}

/** Names the key without revealing it: a MAC of a fixed text under the key. */
export function keyIdOf(key: Buffer): string {
  return createHmac('sha256', key)
    .update('linkqr webhook secret key id')
    .digest('hex')
    .slice(0, 16);
}

function decrypts(stored: string, key: Buffer | undefined): boolean {
  if (!key) return false;
  try {
    decryptSecret(stored, key);
    return true;
  } catch {
    return false;
  }
}

/**
 * The webhooks whose secrets the configured key cannot decrypt (so no delivery of theirs can be
 * signed), by user; undefined when there are none. The stored id of the key that last decrypted
 * them all makes this one read per start; the webhooks are read only when the key has changed.
 */
export async function findUnsignableWebhooks(
  key: Buffer | undefined,
): Promise<UnsignableWebhooks | undefined> {
  const keyId = key ? keyIdOf(key) : undefined;
  if (keyId) {
    const known = await Setting.findById(KEY_ID_SETTING).lean();
    if (known?.value === keyId) return undefined;
  }
  const byUser = new Map<number, number[]>();
  let total = 0;
  const cursor = Webhook.find().sort({ userId: 1, id: 1 }).lean<WebhookRecord[]>().cursor();
  for await (const hook of cursor as AsyncIterable<WebhookRecord>) {
    if (decrypts(hook.secret, key)) continue;
    total += 1;
    const ids = byUser.get(hook.userId) ?? [];
    ids.push(hook.id);
    byUser.set(hook.userId, ids);
  }
  if (total === 0) {
    if (keyId) {
      await Setting.updateOne(
        { _id: KEY_ID_SETTING },
        { $set: { value: keyId } },
        { upsert: true },
      );
    }
    return undefined;
  }
  return {
    reason: key ? 'other key' : 'no key',
    total,
    users: [...byUser].map(([userId, ids]) => ({ userId, count: ids.length, ids })),
  };
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** What an operator reads: which webhooks, whose, why, and the two ways out. */
export function describeUnsignable(found: UnsignableWebhooks, keyFile: string): string {
  const who = found.users
    .map(({ userId, ids }) => {
      const shown = ids.slice(0, IDS_SHOWN_PER_USER).join(', ');
      const more =
        ids.length > IDS_SHOWN_PER_USER ? ` and ${ids.length - IDS_SHOWN_PER_USER} more` : '';
      return `user ${userId}: ${ids.length === 1 ? 'webhook' : 'webhooks'} ${shown}${more}`;
    })
    .join('; ');
  const why =
    found.reason === 'no key'
      ? 'WEBHOOK_SECRET_KEY is not set'
      : 'their secrets were encrypted with a WEBHOOK_SECRET_KEY this service no longer has';
  return (
    `${plural(found.total, 'webhook')} cannot sign their deliveries: ${why} (${who}). ` +
    `Restore the key they were encrypted with (WEBHOOK_SECRET_KEY, or the file ${keyFile} where ` +
    'npm start generates it), or have their owners delete and add them again'
  );
}

/** At start: an error line naming every webhook that can no longer be signed, never silence. */
export async function reportWebhookKey(config: Config, logger: Logger): Promise<void> {
  const found = await findUnsignableWebhooks(config.webhookSecretKey);
  if (!found) return;
  const keyFile = secretFile(config.runtimeDir, 'WEBHOOK_SECRET_KEY');
  logger.error(
    {
      webhooks: found.total,
      users: found.users.map((u) => ({ ...u, ids: u.ids.slice(0, IDS_SHOWN_PER_USER) })),
      reason: found.reason,
    },
    describeUnsignable(found, keyFile),
  );
}
