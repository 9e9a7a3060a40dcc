import { expect } from 'chai';
import { Link } from '../src/links/link.model';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser } from './support/users';

/** Issue 29, L6: parallel creates must not pass a plan limit together. */
describe('plan limits under concurrent creates', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify([{ id: 1, name: 'tiny', maxLinks: 3, maxQrCodes: 2 }]),
    });
  });
  after(() => app.close());

  it('lets exactly maxLinks of 10 parallel link creates through, the others 403', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'tiny' });
    const api = client(app.url, apiKey);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => api.post('/api/url/add', { url: `https://e.com/${i}` })),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).to.deep.equal([200, 200, 200, 403, 403, 403, 403, 403, 403, 403]);
    expect(answers.find((a) => a.status === 403)?.body).to.deep.include({
      error: 1,
      message: 'Plan limit reached: maxLinks (3) on the tiny plan; delete a link or change plan',
    });
    expect(await Link.countDocuments({ userId: user.id })).to.equal(3);
  });

  it('does the same for QR codes', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'tiny' });
    const api = client(app.url, apiKey);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api.post('/api/qr/add', { type: 'text', data: `hello ${i}` }),
      ),
    );
    expect(answers.filter((a) => a.status === 403)).to.have.length(4);
    expect(await QrCode.countDocuments({ userId: user.id })).to.equal(2);
  });

  it('lets parallel qr/bulk and qr/add requests create maxQrCodes together, no more', async () => {
    const { user, apiKey } = await createTestUser({ plan: 'tiny' });
    const api = client(app.url, apiKey);
    const bulks = Array.from({ length: 4 }, (_, i) =>
      api.post<{ data: Array<{ error: number; id?: number; message?: string }> }>('/api/qr/bulk', {
        qrs: [
          { type: 'text', data: `bulk ${i} a` },
          { type: 'text', data: `bulk ${i} b` },
        ],
      }),
    );
    const singles = Array.from({ length: 4 }, (_, i) =>
      api.post<{ error: number; message?: string }>('/api/qr/add', {
        type: 'text',
        data: `single ${i}`,
      }),
    );
    const [bulkAnswers, singleAnswers] = await Promise.all([
      Promise.all(bulks),
      Promise.all(singles),
    ]);
    const limit =
      'Plan limit reached: maxQrCodes (2) on the tiny plan; delete a QR code or change plan';
    const items = bulkAnswers.flatMap((a) => {
      expect(a.status, a.text).to.equal(200);
      return a.body.data;
    });
    for (const item of items.filter((r) => r.error !== 0)) expect(item.message).to.equal(limit);
    for (const a of singleAnswers.filter((a) => a.status !== 200)) {
      expect(a.status, a.text).to.equal(403);
      expect(a.body).to.deep.include({ error: 1, message: limit });
    }
    const made =
      items.filter((r) => r.error === 0).length +
      singleAnswers.filter((a) => a.status === 200).length;
    expect(made).to.equal(2);
    expect(await QrCode.countDocuments({ userId: user.id })).to.equal(2);
  });
});
