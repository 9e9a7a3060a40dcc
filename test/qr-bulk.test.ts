import { expect } from 'chai';
import { unzipSync } from 'fflate';
import { client } from './support/http';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { useQrEnvironment } from './support/qr-env';
import { decodeImage, waitForRender } from './support/qr';
import { rasterise } from './support/ghostscript';
import { createTestUser } from './support/users';

interface BulkResult {
  error: number;
  id?: number;
  link?: string;
  message?: string;
  code?: string;
  field?: string;
}

describe('QR codes in bulk', function () {
  this.timeout(120_000);
  const env = useQrEnvironment();

  it('creates 100 codes with one invalid: 99 codes and one error, in order', async () => {
    const user = await createTestUser();
    const qrs: unknown[] = Array.from({ length: 100 }, (_, i) => ({
      type: 'text',
      data: `bulk item ${i}`,
      name: `Item ${i}`,
    }));
    qrs[42] = { type: 'text', data: 'x', style: { dots: 'hearts' } };
    const res = await client(env.app.url, user.apiKey).post<{ error: number; data: BulkResult[] }>(
      '/api/qr/bulk',
      { qrs },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.have.length(100);
    expect(res.body.data[42]).to.deep.equal({
      error: 1,
      message: 'style.dots must be one of [square, rounded, dots, classy, extra-rounded]',
      code: 'validation_failed',
      field: 'style.dots',
    });
    const made = res.body.data.filter((r) => r.error === 0);
    expect(made).to.have.length(99);
    expect(new Set(made.map((r) => r.id)).size).to.equal(99);
    const list = await client(env.app.url, user.apiKey).get<{ data: { result: number } }>(
      '/api/qr?limit=1',
    );
    expect(list.body.data.result).to.equal(99);
    // In order: item 43's result is the code named 'Item 43'.
    const item = await client(env.app.url, user.apiKey).get<{ details: { name: string } }>(
      `/api/qr/${res.body.data[43]?.id}`,
    );
    expect(item.body.details.name).to.equal('Item 43');
  });

  it('refuses more than 100 items and a body without qrs (422)', async () => {
    const user = await createTestUser();
    const api = client(env.app.url, user.apiKey);
    const many = await api.post('/api/qr/bulk', {
      qrs: Array.from({ length: 101 }, () => ({ type: 'text', data: 'x' })),
    });
    expect([many.status, many.body.message]).to.deep.equal([
      422,
      'qrs must hold at most 100 items',
    ]);
    const none = await api.post('/api/qr/bulk', {});
    expect([none.status, none.body.message]).to.deep.equal([422, 'qrs is required']);
  });

  it('downloads a ZIP with one file per code, each image reading back as its code', async () => {
    const user = await createTestUser();
    const ids: number[] = [];
    for (const [i, style] of [
      null,
      { dots: 'dots' },
      { frame: { type: 'box', text: 'Hi' } },
    ].entries()) {
      const { id } = await env.create(user, {
        type: 'text',
        data: `zip ${i}`,
        name: `Menu ${i}`,
        style,
      });
      await waitForRender(env.app, user.apiKey, id);
      ids.push(id);
    }
    for (const format of ['png', 'svg', 'pdf'] as const) {
      const res = await fetch(
        `${env.app.url}/api/qr/download?ids=${ids.join(',')}&format=${format}`,
        {
          headers: { authorization: `Bearer ${user.apiKey}` },
        },
      );
      expect([
        res.status,
        res.headers.get('content-type'),
        res.headers.get('content-disposition'),
      ]).to.deep.equal([200, 'application/zip', 'attachment; filename="qr-codes.zip"']);
      const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
      expect(Object.keys(files)).to.deep.equal(ids.map((id, i) => `Menu-${i}-${id}.${format}`));
      const images = Object.values(files).map((f) => Buffer.from(f));
      const readable = format === 'pdf' ? await rasterise(images, 'pdf') : images;
      for (const [i, image] of readable.entries()) {
        expect((await decodeImage(image)).text, `${format} ${i}`).to.equal(`zip ${i}`);
      }
    }
  });

  it("answers 404 naming another user's code, 409 for one still rendering, 400 for bad ids", async () => {
    const owner = await createTestUser();
    const other = await createTestUser();
    const { id: mine } = await env.create(owner, { type: 'text', data: 'mine' });
    await waitForRender(env.app, owner.apiKey, mine);
    const { id: theirs } = await env.create(other, { type: 'text', data: 'theirs' });
    const api = client(env.app.url, owner.apiKey);
    const notMine = await api.get(`/api/qr/download?ids=${mine},${theirs}`);
    expect([notMine.status, notMine.body]).to.deep.equal([
      404,
      { error: 1, message: `QR code ${theirs} not found`, code: 'not_found' },
    ]);
    // Held pending (no job queued), as a code between an update and its render is.
    const { id: held } = await env.create(owner, { type: 'text', data: 'held' });
    await waitForRender(env.app, owner.apiKey, held);
    await QrCode.updateOne({ id: held }, { $set: { status: 'pending' } });
    const pending = await api.get(`/api/qr/download?ids=${mine},${held}`);
    expect([pending.status, pending.body]).to.deep.equal([
      409,
      { error: 1, message: `QR code ${held} is pending, not rendered`, code: 'conflict' },
    ]);
    const bad = await api.get('/api/qr/download?ids=1;2');
    expect([bad.status, bad.body]).to.deep.equal([
      400,
      {
        error: 1,
        message: 'Invalid query: ids must be QR code ids separated by commas',
        code: 'bad_query',
        field: 'ids',
      },
    ]);
  });
});
