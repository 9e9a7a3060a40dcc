import type { Config } from '../config';
import type { Logger } from '../shared/infra/logger';
import { secretFile } from '../shared/infra/runtime-secrets';
import { Webhook, type WebhookRecord } from './webhook.model';
import { decryptSecret, keyIdOf } from './webhook-secret';

/** Listed by id in the log line; the count per user is always whole. */
const IDS_SHOWN_PER_USER = 20;

export interface UnsignableWebhooks {
  /** Why none of them can sign. */
  reason: 'no key' | 'other key';
  total: number;
  users: Array<{ userId: number; count: number; ids: number[] }>;
}

function decrypts(stored: string, key: Buffer): boolean {
  try {
    decryptSecret(stored, key);
    return true;
  } catch {
    return false;
  }
}

/**
 * The webhooks whose secrets the configured key cannot decrypt (so no delivery of theirs can be
 * signed), by user; undefined when there are none. Only webhooks marked with another key's id, or
 * with none (older records), are read; an unmarked one the key decrypts is marked on the way.
 */
export async function findUnsignableWebhooks(
  key: Buffer | undefined,
): Promise<UnsignableWebhooks | undefined> {
  const keyId = key ? keyIdOf(key) : undefined;
  const suspects = Webhook.find(keyId ? { secretKeyId: { $ne: keyId } } : {})
    .sort({ userId: 1, id: 1 })
    .lean<WebhookRecord[]>()
    .cursor();
  const byUser = new Map<number, number[]>();
  let total = 0;
  for await (const hook of suspects as AsyncIterable<WebhookRecord>) {
    if (key && keyId && !hook.secretKeyId && decrypts(hook.secret, key)) {
      await Webhook.updateOne({ id: hook.id, secretKeyId: null }, { $set: { secretKeyId: keyId } });
      continue;
    }
    total += 1;
    const ids = byUser.get(hook.userId) ?? [];
    ids.push(hook.id);
    byUser.set(hook.userId, ids);
  }
  if (total === 0) return undefined;
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
