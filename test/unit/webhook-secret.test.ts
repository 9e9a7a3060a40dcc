import { createHmac, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  decryptSecret,
  encryptSecret,
  generateWebhookSecret,
  signatureHeader,
} from '../../src/webhooks/webhook-secret';

describe('webhook secrets and signatures (pure)', () => {
  const key = randomBytes(32);

  it('encrypts a secret so that only the key recovers it, and detects tampering', () => {
    const secret = generateWebhookSecret();
    const stored = encryptSecret(secret, key);
    expect(stored).to.match(/^v1\./);
    expect(stored).not.to.contain(secret.slice(6));
    expect(encryptSecret(secret, key)).not.to.equal(stored);
    expect(decryptSecret(stored, key)).to.equal(secret);
    expect(() => decryptSecret(stored, randomBytes(32))).to.throw();
    const [v, iv, tag, data = ''] = stored.split('.');
    const flipped = (data[0] === 'A' ? 'B' : 'A') + data.slice(1);
    expect(() => decryptSecret([v, iv, tag, flipped].join('.'), key)).to.throw();
  });

  it('signs "t.body" with HMAC-SHA256 as t=<unix>,v1=<hex>', () => {
    const body = '{"event":"clicks","created":"2024-01-01T00:00:00.000Z","data":{}}';
    const expected = createHmac('sha256', 'whsec_test').update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader('whsec_test', body, 1_700_000_000)).to.equal(
      `t=1700000000,v1=${expected}`,
    );
  });
});
