import { expect } from 'chai';
import { OverlayResponse } from '../src/overlays/overlay-response.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { addOverlay } from './support/behaviour';
import { testRedisPrefix } from './support/environment';
import { client, request } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser } from './support/users';

/** Issue 29, L2: contact overlays cannot be replayed, flooded, nor outlive their owner. */
describe('contact overlay abuse', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      CONTACT_DAILY_LIMIT: '3',
      REDIS_PREFIX: `${testRedisPrefix}contact-abuse:`,
    });
  });
  after(() => app.close());

  async function contactLink(apiKey: string) {
    const overlay = await addOverlay(app, apiKey, { type: 'contact', message: 'Write us' });
    return createLink(app, apiKey, { url: 'https://example.com/', type: `overlay-${overlay}` });
  }
  const tokenOf = async (alias: string) =>
    /name="token" value="([^"]+)"/.exec((await visit(app, `/${alias}`)).text)?.[1] ?? '';
  const send = (alias: string, token: string) =>
    request(app.url, `/${alias}/contact`, {
      method: 'POST',
      rawBody: new URLSearchParams({
        token,
        name: 'A',
        email: 'a@example.com',
        message: 'm',
      }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
    });

  it('takes one message per page token: a replayed form is 403', async () => {
    const { apiKey } = await createTestUser();
    const link = await contactLink(apiKey);
    const token = await tokenOf(link.alias);
    expect((await send(link.alias, token)).status).to.equal(200);
    const replay = await send(link.alias, token);
    expect(replay.status).to.equal(403);
    expect(replay.body).to.deep.equal({
      error: 1,
      code: 'forbidden',
      message: 'This form has already been sent: reload the page to send another message.',
    });
  });

  it('caps the messages one overlay takes in a day, from everyone (429)', async () => {
    const { apiKey } = await createTestUser();
    const link = await contactLink(apiKey);
    for (let i = 0; i < 3; i += 1) {
      expect((await send(link.alias, await tokenOf(link.alias))).status).to.equal(200);
    }
    const over = await send(link.alias, await tokenOf(link.alias));
    expect(over.status).to.equal(429);
    expect(over.body).to.deep.include({
      error: 1,
      message: 'This form has received all the messages it takes today: try again tomorrow.',
    });
    expect(Number(over.headers.get('retry-after'))).to.be.within(1, 86_400);
  });

  it('deletes the messages with the user they were sent to', async () => {
    const owner = await createTestUser();
    const admin = await createTestUser({ admin: true });
    const link = await contactLink(owner.apiKey);
    expect((await send(link.alias, await tokenOf(link.alias))).status).to.equal(200);
    expect(await OverlayResponse.countDocuments({ userId: owner.user.id })).to.equal(1);
    const res = await client(app.url, admin.apiKey).delete(`/api/user/${owner.user.id}/delete`);
    expect(res.status).to.equal(200);
    expect(await OverlayResponse.countDocuments({ userId: owner.user.id })).to.equal(0);
  });
});
