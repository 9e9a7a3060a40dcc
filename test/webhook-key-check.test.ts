import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { nextId } from '../src/shared/ids/counter.model';
import { Setting } from '../src/visits/visit.model';
import { Webhook } from '../src/webhooks/webhook.model';
import {
  describeUnsignable,
  findUnsignableWebhooks,
  keyIdOf,
} from '../src/webhooks/webhook-key-check';
import { encryptSecret } from '../src/webhooks/webhook-secret';
import { baseEnv } from './support/environment';
import { createTestUser } from './support/users';

const configuredKey = Buffer.from(baseEnv().WEBHOOK_SECRET_KEY as string, 'hex');

async function addWebhook(userId: number, key: Buffer): Promise<number> {
  const id = await nextId('webhooks');
  await Webhook.create({
    id,
    userId,
    url: 'https://hooks.example.com/in',
    events: ['link.created'],
    secret: encryptSecret('whsec_test', key),
    createdAt: new Date(),
  });
  return id;
}

describe('webhooks a lost WEBHOOK_SECRET_KEY leaves unsignable (issue 27)', () => {
  it('names, per user, the webhooks the configured key cannot decrypt, and remembers a key that decrypts all', async () => {
    const { user } = await createTestUser();
    const kept = await addWebhook(user.id, configuredKey);
    const lost = await addWebhook(user.id, randomBytes(32));

    const withKey = await findUnsignableWebhooks(configuredKey);
    expect(withKey?.reason).to.equal('other key');
    expect(withKey?.users.find((u) => u.userId === user.id)).to.deep.equal({
      userId: user.id,
      count: 1,
      ids: [lost],
    });
    const withoutKey = await findUnsignableWebhooks(undefined);
    expect(withoutKey?.reason).to.equal('no key');
    expect(withoutKey?.users.find((u) => u.userId === user.id)?.ids).to.deep.equal([kept, lost]);

    await Webhook.deleteOne({ id: lost });
    const after = await findUnsignableWebhooks(configuredKey);
    expect(after?.users.find((u) => u.userId === user.id)).to.equal(undefined);
    if (after === undefined) {
      const stored = await Setting.findById('webhookSecretKeyId').lean();
      expect(stored?.value).to.equal(keyIdOf(configuredKey));
    }
    await Webhook.deleteOne({ id: kept });
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
