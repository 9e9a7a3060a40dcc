import { expect } from 'chai';
import { Webhook } from '../src/webhooks/webhook.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser } from './support/users';

/** Issue 29, M7 (first part): webhooks per user are capped, by default 10. */
describe('webhooks per user', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      WEBHOOK_ALLOW_PRIVATE: '1',
      PLANS: JSON.stringify([{ id: 1, name: 'hooks', maxWebhooks: 12 }]),
    });
  });
  after(() => app.close());

  const add = (apiKey: string, i: number) =>
    client(app.url, apiKey).post('/api/webhook/add', {
      url: `http://127.0.0.1:9/hook-${i}`,
      events: ['link.created'],
    });

  it('refuses an 11th webhook with 403 when the plan sets no maxWebhooks', async () => {
    const { user, apiKey } = await createTestUser();
    for (let i = 0; i < 10; i += 1) expect((await add(apiKey, i)).status).to.equal(200);
    const res = await add(apiKey, 10);
    expect(res.status).to.equal(403);
    expect(res.body).to.deep.include({
      error: 1,
      message: `Plan limit reached: maxWebhooks (10) on the ${user.status} plan; delete a webhook or change plan`,
    });
    expect(await Webhook.countDocuments({ userId: user.id })).to.equal(10);
  });

  it('follows a plan’s own maxWebhooks', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'hooks' });
    for (let i = 0; i < 12; i += 1) expect((await add(apiKey, i)).status).to.equal(200);
    expect((await add(apiKey, 12)).status).to.equal(403);
    expect(await Webhook.countDocuments({ userId: user.id })).to.equal(12);
  });
});
