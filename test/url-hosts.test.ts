import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createTestUser } from './support/users';

const HOST_MESSAGE = 'must be an http or https URL whose host is a valid host name or address';
/** Hosts WHATWG URL parsing accepts that would end a CSP directive and start another. */
const BAD_HOSTS = [
  'https://x;script-src',
  'https://a.example,b.example/',
  "https://x'unsafe-inline'/",
  'https://*.example/',
];

/** Issue 29, M1: no user URL may carry a host that can inject a CSP directive. */
describe('URL hosts users give are host names or addresses', () => {
  let app: TestApp;
  let api: ReturnType<typeof client>;

  before(async () => {
    app = await startTestApp();
    api = client(app.url, (await createTestUser()).apiKey);
  });
  after(() => app.close());

  for (const url of BAD_HOSTS) {
    it(`refuses ${url} as a link's URL with 422`, async () => {
      const res = await api.post('/api/url/add', { url });
      expect(res.status).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message: `url ${HOST_MESSAGE}` });
    });
  }

  it('refuses such a host as a targeting link, a meta image and a splash image', async () => {
    const rule = await api.post('/api/url/add', {
      url: 'https://example.com/',
      geotarget: [{ location: 'CA', link: 'https://x;frame-ancestors' }],
    });
    expect(rule.status).to.equal(422);
    expect(rule.body).to.deep.include({ error: 1, message: `geotarget[0].link ${HOST_MESSAGE}` });
    const meta = await api.post('/api/url/add', {
      url: 'https://example.com/',
      metaimage: 'https://x;script-src/a.png',
    });
    expect(meta.status).to.equal(422);
    expect(meta.body).to.deep.include({ error: 1, message: `metaimage ${HOST_MESSAGE}` });
    const splash = await api.post('/api/splash/add', {
      name: 'n',
      title: 't',
      message: 'm',
      image: 'https://x;script-src/a.png',
      link: 'https://example.com/',
      button: 'b',
      counter: 5,
    });
    expect(splash.status).to.equal(422);
    expect(splash.body).to.deep.include({ error: 1, message: `image ${HOST_MESSAGE}` });
  });

  it('refuses such a host as a rule destination and an expired-link destination', async () => {
    const rule = await api.post('/api/url/add', {
      url: 'https://example.com/',
      rules: [{ url: 'https://x;script-src/', when: { country: ['DE'] } }],
    });
    expect(rule.status).to.equal(422);
    expect(rule.body).to.deep.include({
      error: 1,
      message: 'rules[0].url must be an http or https URL, or an app URL (myapp://...)',
    });
    const expired = await api.post('/api/url/add', {
      url: 'https://example.com/',
      expiredurl: 'https://x;frame-ancestors/',
    });
    expect(expired.status).to.equal(422);
    expect(expired.body).to.deep.include({ error: 1, message: `expiredurl ${HOST_MESSAGE}` });
  });

  it('refuses a retargeting pixel whose tag is a URL with such a host (422)', async () => {
    const res = await api.post('/api/pixel/add', {
      type: 'retargetpixel',
      name: 'r',
      tag: 'https://x;script-src',
    });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message:
        'tag for retargetpixel: a URL tag must have a valid host name or address as its host',
    });
  });

  it('still accepts host names, punycode, addresses and ports', async () => {
    for (const url of [
      'https://example.com/a;b,c',
      'https://xn--bcher-kva.example/',
      'http://192.0.2.1:8080/',
      'https://[2001:db8::1]/',
      'https://_dmarc.example.com./',
    ]) {
      const res = await api.post('/api/url/add', { url });
      expect(res.status, url).to.equal(200);
    }
  });
});
