import { expect } from 'chai';
import { Bio } from '../src/bio/bio.model';
import { Campaign } from '../src/campaigns/campaign.model';
import { Channel, ChannelItem } from '../src/channels/channel.model';
import { BrandedDomain } from '../src/domains/domain.model';
import { ImportJob } from '../src/imports/import.model';
import { AliasReservation } from '../src/links/alias.model';
import { Link, type LinkRecord } from '../src/links/link.model';
import { Overlay } from '../src/overlays/overlay.model';
import { Pixel } from '../src/pixels/pixel.model';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { QrImage } from '../src/qr-codes/qr-image.model';
import { SplashPage } from '../src/splash/splash-page.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { addOverlay, addPixel, addSplash, FB_TAG } from './support/behaviour';
import { assignToCampaign, createCampaign } from './support/campaigns';
import { assignToChannel, createChannel } from './support/channels';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { finishedImport, startTestImportWorker, uploadImport } from './support/imports';
import { createLink, visit } from './support/links';
import { decodeImage, startQrWorker, waitForRender } from './support/qr';
import { createTestUser, uniqueName } from './support/users';

interface Line {
  type?: string;
  data?: Record<string, unknown>;
  format?: string;
  version?: number;
}

/** A record without the fields that differ between owners by design (ids and owner). */
function comparable(doc: Record<string, unknown>, ...drop: string[]) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(doc))
    if (!['_id', 'id', 'userId', ...drop].includes(k)) out[k] = v;
  return out;
}

describe('portable export: GET /api/export, then source linkqr', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  let renderer: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({ IMPORT_ALLOW_PRIVATE: 'true', WEBHOOK_ALLOW_PRIVATE: 'true' });
    worker = startTestImportWorker(app);
    renderer = startQrWorker(app);
  });
  after(async () => {
    await renderer.close();
    await worker.close();
    await app.close();
  });

  it('exports every kind of record and imports them for a new user with references and redirects kept', async () => {
    const { apiKey, user } = await createTestUser();
    const api = client(app.url, apiKey);
    const domainUrl = uniqueDomain();
    const domainRes = await api.post<{ id: number }>('/api/domain/add', { domain: domainUrl });
    expect(domainRes.status, domainRes.text).to.equal(200);
    const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
    const splash = await addSplash(app, apiKey, { title: 'Wait', link: 'https://example.com/ad' });
    const overlay = await addOverlay(app, apiKey, { message: 'Hello' });
    const campaign = await createCampaign(app, apiKey, { name: 'Spring', slug: uniqueName('sl') });
    const channel = await createChannel(app, apiKey, { name: 'Print' });
    const stem = uniqueName('rt');
    const plain = await createLink(app, apiKey, {
      url: 'https://example.com/plain',
      custom: `${stem}-p`,
    });
    const rich = await createLink(app, apiKey, {
      url: 'https://example.com/rich',
      custom: `${stem}-r`,
      title: 'Rich',
      type: 'splash',
      splash,
      pixels: [pixel],
      geotarget: [{ location: 'Germany', link: 'https://example.de/' }],
    });
    const framed = await createLink(app, apiKey, {
      url: 'https://example.com/overlay',
      type: `overlay-${overlay}`,
    });
    const branded = await createLink(app, apiKey, {
      url: 'https://example.com/branded',
      custom: `${stem}-b`,
      domain: domainUrl,
    });
    const qrRes = await api.post<{ id: number; link: string }>('/api/qr/add', {
      type: 'link',
      data: plain.shorturl,
      name: 'Flyer',
      foreground: 'rgb(20,40,90)',
      size: 600,
      format: 'svg',
      style: { dots: 'rounded', corners: { frame: { shape: 'rounded' } } },
    });
    expect(qrRes.status, qrRes.text).to.equal(200);
    const qr = qrRes.body;
    await assignToCampaign(app, apiKey, campaign.id, plain.id);
    await assignToChannel(app, apiKey, channel.id, 'links', rich.id);
    await assignToChannel(app, apiKey, channel.id, 'qr', qr.id);
    const bioRes = await api.post<{ id: number; url: string }>('/api/bio/add', {
      name: 'My links',
      alias: `${stem}-bio`,
      links: [{ title: 'Shop', url: 'https://example.com/shop' }],
    });
    expect(bioRes.status, bioRes.text).to.equal(200);
    await assignToChannel(app, apiKey, channel.id, 'bio', bioRes.body.id);
    const hook = await api.post('/api/webhook/add', {
      url: 'http://127.0.0.1:9/in',
      events: ['link.created'],
    });
    expect(hook.status, hook.text).to.equal(200);

    const res = await fetch(`${app.url}/api/export`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.equal('application/x-ndjson; charset=utf-8');
    expect(res.headers.get('linkqr-export-version')).to.equal('1');
    const text = await res.text();
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Line);
    expect(lines[0]).to.include({
      format: 'linkqr-export',
      version: 1,
      source: 'http://linkqr.test',
    });
    const types = lines.slice(1).map((l) => l.type);
    expect(types).to.deep.equal([
      'domain',
      'pixel',
      'splash',
      'overlay',
      'campaign',
      'channel',
      'bio',
      'link',
      'link',
      'link',
      'link',
      'qr',
      'channelItem',
      'channelItem',
      'channelItem',
      'webhook',
    ]);
    const webhook = lines.find((l) => l.type === 'webhook')?.data ?? {};
    expect(webhook).to.not.have.any.keys('secret', 'secretKeyId', 'userId');
    expect(text).to.not.include('"userId"');

    // What redirects where before; then the source's records leave, as on a fresh database.
    const aliases = [plain, rich, framed].map((l) => l.alias);
    const before = await Promise.all(aliases.map((a) => visit(app, `/${a}`)));
    const host = new URL(domainUrl).host;
    const brandedBefore = await requestWithHost(app.url, `/${branded.alias}`, host);
    expect(brandedBefore.location).to.equal('https://example.com/branded');
    const original = {
      links: await Link.find({ userId: user.id }).sort({ id: 1 }).lean<LinkRecord[]>(),
      pixel: await Pixel.findOne({ id: pixel }).lean(),
      splash: await SplashPage.findOne({ id: splash }).lean(),
      overlay: await Overlay.findOne({ id: overlay }).lean(),
      campaign: await Campaign.findOne({ id: campaign.id }).lean(),
      qr: await QrCode.findOne({ id: qr.id }).lean(),
      bio: await Bio.findOne({ id: bioRes.body.id }).lean(),
    };
    const bioPageBefore = await visit(app, `/b/${stem}-bio`);
    expect(bioPageBefore.status).to.equal(200);
    const bioHtml = bioPageBefore.text;
    for (const model of [
      Link,
      BrandedDomain,
      Pixel,
      SplashPage,
      Overlay,
      Campaign,
      Channel,
      ChannelItem,
      QrCode,
      Bio,
    ])
      await (model as typeof Link).deleteMany({ userId: user.id });
    await QrImage.deleteMany({ qrId: qr.id });
    await AliasReservation.deleteMany({
      alias: { $in: [...aliases, branded.alias, `${stem}-bio`] },
    });

    const newcomer = await createTestUser();
    const started = await uploadImport(app, newcomer.apiKey, text, { source: 'linkqr' });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, newcomer.apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.deep.include({
      status: 'done',
      total: 16,
      imported: 16,
      skipped: 0,
      failed: 0,
    });
    // Webhooks come with a new secret each (test/export-webhooks.test.ts follows them further).
    expect(report.errors.map((e) => e.item)).to.deep.equal([`webhook ${String(webhook.id)}`]);

    const userId = newcomer.user.id;
    const links = await Link.find({ userId }).sort({ id: 1 }).lean<LinkRecord[]>();
    const [newPixel, newSplash, newOverlay, newCampaign, newChannel, newDomain] = await Promise.all(
      [
        Pixel.findOne({ userId }).lean(),
        SplashPage.findOne({ userId }).lean(),
        Overlay.findOne({ userId }).lean(),
        Campaign.findOne({ userId }).lean(),
        Channel.findOne({ userId }).lean(),
        BrandedDomain.findOne({ userId }).lean(),
      ],
    );
    const newQr = await QrCode.findOne({ userId }).lean();
    const newBio = await Bio.findOne({ userId }).lean();
    // Same name, alias, links and date; its page served again at the same address.
    expect(comparable(newBio ?? {})).to.deep.equal(comparable(original.bio ?? {}));
    const bioPageAfter = await visit(app, `/b/${stem}-bio`);
    expect(bioPageAfter.status).to.equal(200);
    expect(bioPageAfter.text).to.equal(bioHtml);
    expect(comparable(newPixel ?? {})).to.deep.equal(comparable(original.pixel ?? {}));
    expect(comparable(newSplash ?? {})).to.deep.equal(comparable(original.splash ?? {}));
    expect(comparable(newOverlay ?? {})).to.deep.equal(comparable(original.overlay ?? {}));
    expect(comparable(newCampaign ?? {})).to.deep.equal(comparable(original.campaign ?? {}));
    expect(newDomain?.host).to.equal(host);
    // Same design, content, name, date and alias; rendered anew here.
    const renderState = ['status', 'renderVersion', 'renderedAt', 'updatedAt', 'failureReason'];
    expect(comparable(newQr ?? {}, ...renderState)).to.deep.equal(
      comparable(original.qr ?? {}, ...renderState),
    );
    const refs = ['domainId', 'campaignId', 'splashId', 'overlayId', 'pixelIds'];
    expect(links.map((l) => comparable(l, ...refs))).to.deep.equal(
      original.links.map((l) => comparable(l, ...refs)),
    );
    const byAlias = new Map(links.map((l) => [l.alias, l]));
    expect(byAlias.get(rich.alias)).to.deep.include({
      splashId: newSplash?.id,
      pixelIds: [newPixel?.id],
    });
    expect(byAlias.get(plain.alias)?.campaignId).to.equal(newCampaign?.id);
    expect(byAlias.get(framed.alias)?.overlayId).to.equal(newOverlay?.id);
    expect(byAlias.get(branded.alias)?.domainId).to.equal(newDomain?.id);
    const assigned = await ChannelItem.find({ userId }).sort({ type: 1 }).lean();
    expect(assigned.map((a) => [a.channelId, a.type, a.itemId])).to.deep.equal([
      [newChannel?.id, 'bio', newBio?.id],
      [newChannel?.id, 'links', byAlias.get(rich.alias)?.id],
      [newChannel?.id, 'qr', newQr?.id],
    ]);

    // The imported code is rendered and served, and its scans reach the imported link.
    expect((await waitForRender(app, newcomer.apiKey, newQr?.id ?? 0)).status).to.equal('ready');
    const image = await fetch(`${app.url}/qr/${newQr?.alias}.png`);
    expect(image.status).to.equal(200);
    expect(image.headers.get('content-type')).to.equal('image/png');
    const scanned = await decodeImage(Buffer.from(await image.arrayBuffer()));
    expect(scanned.text).to.equal(`http://linkqr.test/s/${newQr?.alias}`);
    const scan = await visit(app, `/s/${newQr?.alias}`);
    expect(scan.headers.get('location')).to.equal(plain.shorturl);

    const after = await Promise.all(aliases.map((a) => visit(app, `/${a}`)));
    expect(after.map((r) => [r.status, r.headers.get('location')])).to.deep.equal(
      before.map((r) => [r.status, r.headers.get('location')]),
    );
    expect((await requestWithHost(app.url, `/${branded.alias}`, host)).location).to.equal(
      'https://example.com/branded',
    );

    const again = await uploadImport(app, newcomer.apiKey, text, { source: 'linkqr' });
    const rerun = await finishedImport(app, newcomer.apiKey, again.body.id);
    expect(rerun).to.deep.include({ status: 'done', imported: 0, failed: 0, skipped: 16 });
    expect(await QrCode.countDocuments({ userId })).to.equal(1);
  });

  it("keeps a QR code's alias unless taken (skipped, or renamed with its link target following the renamed link) and validates it as qr/add does", async () => {
    const owner = await createTestUser();
    const link = await createLink(app, owner.apiKey, {
      url: 'https://example.com/qr-target',
      custom: uniqueName('ql'),
    });
    const made = await client(app.url, owner.apiKey).post<{ id: number; link: string }>(
      '/api/qr/add',
      { type: 'link', data: link.shorturl, name: 'Poster' },
    );
    expect(made.status, made.text).to.equal(200);
    const original = await QrCode.findOne({ id: made.body.id }).lean();
    const res = await fetch(`${app.url}/api/export`, {
      headers: { authorization: `Bearer ${owner.apiKey}` },
    });
    // A code no linkqr would accept: too small for its content.
    const tooSmall = { type: 'qr', data: { id: 999_999, type: 'text', data: 'hi', size: 50 } };
    const text = `${await res.text()}${JSON.stringify(tooSmall)}\n`;
    const linkLabel = String((await Link.findOne({ alias: link.alias }).lean())?.id);
    const qrLabel = `qr ${made.body.id}`;

    const skipper = await createTestUser();
    const skipped = await finishedImport(
      app,
      skipper.apiKey,
      (await uploadImport(app, skipper.apiKey, text, { source: 'linkqr' })).body.id,
    );
    expect(skipped, JSON.stringify(skipped.errors)).to.deep.include({
      status: 'done',
      imported: 0,
      skipped: 2,
      failed: 1,
    });
    expect(skipped.errors).to.deep.equal([
      { item: linkLabel, message: `alias ${link.alias} is already taken: skipped` },
      {
        item: qrLabel,
        message: `link ${linkLabel} was not imported: the code still points at ${link.shorturl}`,
      },
      { item: qrLabel, message: `alias ${original?.alias} is already taken: skipped` },
      { item: 'qr 999999', message: 'size must be greater than or equal to 128' },
    ]);
    expect(await QrCode.countDocuments({ userId: skipper.user.id })).to.equal(0);

    const renamer = await createTestUser();
    const renamed = await finishedImport(
      app,
      renamer.apiKey,
      (await uploadImport(app, renamer.apiKey, text, { source: 'linkqr', onConflict: 'rename' }))
        .body.id,
    );
    expect(renamed).to.deep.include({ status: 'done', imported: 2, skipped: 0, failed: 1 });
    const newLink = await Link.findOne({ userId: renamer.user.id }).lean<LinkRecord>();
    const newQr = await QrCode.findOne({ userId: renamer.user.id }).lean();
    expect(newLink?.alias).to.not.equal(link.alias);
    expect(newQr?.alias)
      .to.match(/^[A-Za-z0-9]{8}$/)
      .and.not.equal(original?.alias);
    expect(renamed.errors).to.deep.equal([
      { item: linkLabel, message: `alias ${link.alias} was taken: imported as ${newLink?.alias}` },
      { item: qrLabel, message: `alias ${original?.alias} was taken: imported as ${newQr?.alias}` },
      { item: 'qr 999999', message: 'size must be greater than or equal to 128' },
    ]);
    expect(newQr).to.deep.include({ name: 'Poster', data: `http://linkqr.test/${newLink?.alias}` });
    expect((await waitForRender(app, renamer.apiKey, newQr?.id ?? 0)).status).to.equal('ready');
    const scan = await visit(app, `/s/${newQr?.alias}`);
    expect(scan.headers.get('location')).to.equal(`http://linkqr.test/${newLink?.alias}`);
    const redirect = await visit(app, `/${newLink?.alias}`);
    expect(redirect.headers.get('location')).to.equal('https://example.com/qr-target');
  });

  it("reads another linkqr's GET /api/export with its key (url + key), the key kept nowhere", async () => {
    const owner = await createTestUser();
    const link = await createLink(app, owner.apiKey, {
      url: 'https://example.com/live-source',
      custom: uniqueName('lv'),
    });
    const { apiKey, user } = await createTestUser();
    // The same service stands in for the other linkqr: its alias is taken here, so renamed.
    const started = await client(app.url, apiKey).post<{ id: number }>('/api/import', {
      source: 'linkqr',
      url: app.url,
      key: owner.apiKey,
      onConflict: 'rename',
    });
    expect(started.status, started.text).to.equal(200);
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report, JSON.stringify(report.errors)).to.deep.include({
      status: 'done',
      total: 1,
      imported: 1,
    });
    const made = await Link.findOne({ userId: user.id }).lean<LinkRecord>();
    expect(made?.url).to.equal('https://example.com/live-source');
    expect(report.errors).to.deep.equal([
      {
        item: String((await Link.findOne({ alias: link.alias }).lean<LinkRecord>())?.id),
        message: `alias ${link.alias} was taken: imported as ${made?.alias}`,
      },
    ]);
    const redirect = await visit(app, `/${made?.alias}`);
    expect(redirect.headers.get('location')).to.equal('https://example.com/live-source');
    const job = await ImportJob.findOne({ id: started.body.id }).lean();
    expect(JSON.stringify(job)).to.not.include(owner.apiKey);
  });

  it('refuses a file that is not a linkqr export, saying so', async () => {
    const { apiKey } = await createTestUser();
    const started = await uploadImport(app, apiKey, '{"hello":1}\n', { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'failed', imported: 0 });
    expect(report.errors).to.deep.equal([{ item: '', message: 'not a linkqr export' }]);
  });
});

describe('portable export: QR codes within the plan', function () {
  this.timeout(60_000);
  let app: TestApp;
  let worker: { close(): Promise<void> };
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify([{ id: 1, name: 'oneqr', maxQrCodes: 1 }]),
    });
    worker = startTestImportWorker(app);
  });
  after(async () => {
    await worker.close();
    await app.close();
  });

  it('stops an import at the plan’s maxQrCodes and says so', async () => {
    const { apiKey, user } = await createTestUser({ plan: 'oneqr' });
    const header = { format: 'linkqr-export', version: 1, source: 'https://old.example' };
    const codes = [1, 2].map((id) => ({
      type: 'qr',
      data: { id, type: 'text', data: `hi ${id}` },
    }));
    const text = [header, ...codes].map((l) => JSON.stringify(l)).join('\n');
    const started = await uploadImport(app, apiKey, text, { source: 'linkqr' });
    const report = await finishedImport(app, apiKey, started.body.id);
    expect(report).to.deep.include({ status: 'failed', imported: 1, failed: 1, skipped: 0 });
    expect(report.errors).to.deep.equal([
      {
        item: '',
        message:
          'Plan limit reached: maxQrCodes (1) on the oneqr plan; delete a QR code or change plan: import stopped',
      },
    ]);
    expect(await QrCode.countDocuments({ userId: user.id })).to.equal(1);
  });
});
