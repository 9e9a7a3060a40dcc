import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { nextId } from '../src/shared/ids/counter.model';
import { Webhook } from '../src/webhooks/webhook.model';
import { describeUnsignable, findUnsignableWebhooks } from '../src/webhooks/webhook-key-check';
import { encryptSecret, keyIdOf } from '../src/webhooks/webhook-secret';
import { startTestApp } from './support/app-harness';
import { baseEnv } from './support/environment';
import { client } from './support/http';
import { createTestUser } from './support/users';

const configuredKey = Buffer.from(baseEnv().WEBHOOK_SECRET_KEY as string, 'hex');

/** A webhook as stored; `marked`: with the id of its key, as webhooks are since issue 27. */
async function addWebhook(userId: number, key: Buffer, marked: boolean): Promise<number> {
  const id = await nextId('webhooks');
  await Webhook.collection.insertOne({
    id,
    userId,
    url: 'https://hooks.example.com/in',
    events: ['link.created'],
    secret: encryptSecret('whsec_test', key),
    ...(marked ? { secretKeyId: keyIdOf(key) } : {}),
    createdAt: new Date(),
  });
  return id;
}

describe('webhooks a lost WEBHOOK_SECRET_KEY leaves unsignable (issue 27)', () => {
  it('names, per user, the webhooks the configured key cannot decrypt, older unmarked ones included', async () => {
    const { user } = await createTestUser();
    const kept = await addWebhook(user.id, configuredKey, false);
    const lost = await addWebhook(user.id, randomBytes(32), false);
    const otherKey = await addWebhook(user.id, randomBytes(32), true);
    const mine = (found: Awaited<ReturnType<typeof findUnsignableWebhooks>>) =>
      found?.users.find((u) => u.userId === user.id);

    const withKey = await findUnsignableWebhooks(configuredKey);
    expect(withKey?.reason).to.equal('other key');
    expect(mine(withKey)).to.deep.equal({ userId: user.id, count: 2, ids: [lost, otherKey] });
    // The older record the key decrypts is marked with the key's id on the way.
    const marked = await Webhook.findOne({ id: kept }).lean();
    expect(marked?.secretKeyId).to.equal(keyIdOf(configuredKey));

    const withoutKey = await findUnsignableWebhooks(undefined);
    expect(withoutKey?.reason).to.equal('no key');
    expect(mine(withoutKey)?.ids).to.deep.equal([kept, lost, otherKey]);

    await Webhook.deleteMany({ id: { $in: [lost, otherKey] } });
    expect(mine(await findUnsignableWebhooks(configuredKey))).to.equal(undefined);
    await Webhook.deleteOne({ id: kept });
  });

  it('marks every webhook the API adds with the id of the key that encrypted it', async () => {
    const { apiKey } = await createTestUser();
    const app = await startTestApp({ WEBHOOK_ALLOW_PRIVATE: '1' });
    try {
      const added = await client(app.url, apiKey).post<{ id: number }>('/api/webhook/add', {
        url: 'http://127.0.0.1:9/hooks',
        events: ['link.created'],
      });
      expect(added.status, added.text).to.equal(200);
      const stored = await Webhook.findOne({ id: added.body.id }).lean();
      expect(stored?.secretKeyId).to.equal(keyIdOf(configuredKey));
    } finally {
      await app.close();
    }
  });

  it('says which webhooks, whose, why and the two ways out, listing at most 20 ids per user', () => {
    const ids = Array.from({ length: 23 }, (_, i) => i + 1);
    const message = describeUnsignable(
      {
        reason: 'other key',
        total: 24,
        users: [
          { userId: 7, count: 23, ids },
          { userId: 9, count: 1, ids: [40] },
        ],
      },
      '/srv/linkqr/data/secrets/webhook-secret-key',
    );
    expect(message).to.equal(
      '24 webhooks cannot sign their deliveries: their secrets were encrypted with a WEBHOOK_SECRET_KEY this service no longer has ' +
        `(user 7: webhooks ${ids.slice(0, 20).join(', ')} and 3 more; user 9: webhook 40). ` +
        'Restore the key they were encrypted with (WEBHOOK_SECRET_KEY, or the file /srv/linkqr/data/secrets/webhook-secret-key where npm start generates it), ' +
        'or have their owners delete and add them again',
    );
  });

  it('never stores or shows the key itself, only a MAC naming it', () => {
    const id = keyIdOf(configuredKey);
    expect(id).to.match(/^[0-9a-f]{16}$/);
    expect(configuredKey.toString('hex')).to.not.include(id);
    expect(keyIdOf(randomBytes(32))).to.not.equal(id);
  });
});
