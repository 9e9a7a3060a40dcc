import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { requestWithHost, uniqueDomain } from './support/domains';
import { client } from './support/http';
import { createTestUser } from './support/users';

const AASA = {
  applinks: { details: [{ appIDs: ['ABCDE12345.com.example.app'], components: [{ '/': '/*' }] }] },
};
const ASSET_LINKS = [
  {
    relation: ['delegate_permission/common.handle_all_urls'],
    target: {
      namespace: 'android_app',
      package_name: 'com.example.app',
      sha256_cert_fingerprints: ['14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64'],
    },
  },
];

describe('app-link files on branded domains (issue 24)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  async function claim(body: Record<string, unknown> = {}) {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const domain = uniqueDomain();
    const res = await api.post<{ id: number }>('/api/domain/add', { domain, ...body });
    expect(res.status, res.text).to.equal(200);
    return { api, id: res.body.id, host: new URL(domain).hostname };
  }

  it('serves both files on the domain host as JSON', async () => {
    const { host } = await claim({
      appleAppSiteAssociation: AASA,
      assetLinks: JSON.stringify(ASSET_LINKS),
    });
    const apple = await requestWithHost(app.url, '/.well-known/apple-app-site-association', host);
    expect(apple.status).to.equal(200);
    expect(apple.contentType).to.match(/^application\/json/);
    expect(JSON.parse(apple.text)).to.deep.equal(AASA);
    const android = await requestWithHost(app.url, '/.well-known/assetlinks.json', host);
    expect(android.status).to.equal(200);
    expect(android.contentType).to.match(/^application\/json/);
    expect(JSON.parse(android.text)).to.deep.equal(ASSET_LINKS);
  });

  it('answers 404 where no file is set: another domain, or the service host', async () => {
    const { host } = await claim({ assetLinks: ASSET_LINKS });
    const missing = await requestWithHost(app.url, '/.well-known/apple-app-site-association', host);
    expect(missing.status).to.equal(404);
    const own = await requestWithHost(app.url, '/.well-known/assetlinks.json', 'linkqr.test');
    expect(own.status).to.equal(404);
  });

  it('changes and clears a file on update', async () => {
    const { api, id, host } = await claim({ assetLinks: ASSET_LINKS });
    let res = await api.put(`/api/domain/${id}/update`, { assetLinks: [] });
    expect(res.status, res.text).to.equal(200);
    let file = await requestWithHost(app.url, '/.well-known/assetlinks.json', host);
    expect(file.text).to.equal('[]');
    res = await api.put(`/api/domain/${id}/update`, { assetLinks: null });
    expect(res.status, res.text).to.equal(200);
    file = await requestWithHost(app.url, '/.well-known/assetlinks.json', host);
    expect(file.status).to.equal(404);
  });

  it('refuses a file that is not JSON, of the wrong shape, or over 16 kB, with 422', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ appleAppSiteAssociation: '{not json' }, 'appleAppSiteAssociation must be JSON'],
      [{ appleAppSiteAssociation: [] }, 'appleAppSiteAssociation must be a JSON object'],
      [{ assetLinks: { a: 1 } }, 'assetLinks must be a JSON array'],
      [
        { assetLinks: [{ pad: 'x'.repeat(16 * 1024) }] },
        'assetLinks must be at most 16 kB of JSON',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await api.post('/api/domain/add', { domain: uniqueDomain(), ...body });
      expect(res.status, message).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message });
    }
  });
});
