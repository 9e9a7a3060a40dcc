import { expect } from 'chai';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { addPixel, FB_TAG } from './support/behaviour';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser } from './support/users';

const IPHONE =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';
const WINDOWS =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const RULES = [
  { url: 'https://example.com/newsletter', when: { query: { utm_source: 'newsletter' } } },
  { url: 'https://example.com/office', when: { ip: ['2001:db8:1::/48', '10.0.0.0/8'] } },
  { url: 'https://example.com/ca-iphone', when: { country: ['CA'], device: ['iphone'] } },
  {
    url: 'https://example.com/sale',
    when: { after: '2020-01-01T00:00:00+01:00', before: '2020-01-03T00:00:00+01:00' },
  },
  { url: 'https://example.com/from-news', when: { referrer: ['news.example.org'] } },
];

describe('redirect rules (issue 24)', () => {
  const logged: string[] = [];
  let app: TestApp;
  before(async () => {
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => {
        const entry = JSON.parse(line) as { msg?: string; path?: string };
        if (entry.msg === 'request completed' && entry.path) logged.push(entry.path);
      },
    });
    app = await startTestApp({ TRUST_PROXY: '1', COUNTRY_HEADER: 'cf-ipcountry' }, { logger });
    await linkCacheLive(app);
  });
  after(() => app.close());

  async function linkWithRules(extra: Record<string, unknown> = {}) {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/home',
      rules: RULES,
      ...extra,
    });
    return { apiKey, link };
  }

  /** Location for a visitor, asked twice: the normal routes fill the cache, the fast path answers. */
  async function locationFor(path: string, headers: Record<string, string>) {
    const answers: string[] = [];
    for (let i = 0; i < 2; i += 1) {
      const res = await visit(app, path, { headers: { 'user-agent': WINDOWS, ...headers } });
      expect(res.status, res.text).to.equal(302);
      answers.push(res.headers.get('location') ?? '');
    }
    expect(answers[1], 'the fast path agrees with the normal routes').to.equal(answers[0]);
    return answers[0];
  }

  it('stores the rules and returns them in list and details', async () => {
    const { apiKey, link } = await linkWithRules();
    const details = await client(app.url, apiKey).get<{ details: { rules: unknown } }>(
      `/api/url/${link.id}`,
    );
    expect(details.status).to.equal(200);
    expect(details.body.details.rules).to.deep.equal(RULES);
  });

  it('sends each visitor where the first matching rule says, else to the link URL', async () => {
    const { link } = await linkWithRules();
    const at = `/${link.alias}`;
    expect(await locationFor(at, {})).to.equal('https://example.com/home');
    expect(await locationFor(`${at}?utm_source=newsletter`, {})).to.equal(
      'https://example.com/newsletter',
    );
    expect(await locationFor(`${at}?utm_source=ads`, {})).to.equal('https://example.com/home');
    expect(await locationFor(at, { 'x-forwarded-for': '2001:db8:1:2::5' })).to.equal(
      'https://example.com/office',
    );
    expect(await locationFor(at, { 'x-forwarded-for': '10.1.2.3' })).to.equal(
      'https://example.com/office',
    );
    // First match: the office address with the newsletter parameter goes to the newsletter.
    expect(
      await locationFor(`${at}?utm_source=newsletter`, { 'x-forwarded-for': '10.1.2.3' }),
    ).to.equal('https://example.com/newsletter');
    expect(await locationFor(at, { 'cf-ipcountry': 'CA', 'user-agent': IPHONE })).to.equal(
      'https://example.com/ca-iphone',
    );
    expect(await locationFor(at, { 'cf-ipcountry': 'CA' })).to.equal('https://example.com/home');
    expect(await locationFor(at, { referer: 'https://news.example.org/today' })).to.equal(
      'https://example.com/from-news',
    );
  });

  it('answers a cached link with rules on the fast path, query string included', async () => {
    const { link } = await linkWithRules();
    await visit(app, `/${link.alias}`);
    logged.length = 0;
    const res = await visit(app, `/${link.alias}?utm_source=newsletter`);
    expect(res.headers.get('location')).to.equal('https://example.com/newsletter');
    expect(logged).to.not.include(`/${link.alias}`);
  });

  it('applies the rules on links with pages too (a pixel page to the rule destination)', async () => {
    const { apiKey } = await createTestUser();
    const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/home',
      rules: RULES,
      pixels: [pixel],
    });
    const res = await visit(app, `/${link.alias}?utm_source=newsletter`, {
      headers: { 'user-agent': WINDOWS },
    });
    expect(res.status).to.equal(200);
    expect(res.text).to.include(FB_TAG);
    expect(res.text).to.include('https://example.com/newsletter');
  });

  it('appends the link parameters to rule destinations', async () => {
    const { link } = await linkWithRules({ parameters: [{ name: 'utm_medium', value: 'qr' }] });
    expect(await locationFor(`/${link.alias}?utm_source=newsletter`, {})).to.equal(
      'https://example.com/newsletter?utm_medium=qr',
    );
  });

  it('changes and clears rules on update, the cached link with them', async () => {
    const { apiKey, link } = await linkWithRules();
    const api = client(app.url, apiKey);
    const at = `/${link.alias}?utm_source=newsletter`;
    expect(await locationFor(at, {})).to.equal('https://example.com/newsletter');
    const moved = [{ url: 'https://example.com/moved', when: { query: { utm_source: '*' } } }];
    let res = await api.put(`/api/url/${link.id}/update`, { rules: moved });
    expect(res.status, res.text).to.equal(200);
    expect(await locationFor(at, {})).to.equal('https://example.com/moved');
    res = await api.put(`/api/url/${link.id}/update`, { rules: null });
    expect(res.status, res.text).to.equal(200);
    expect(await locationFor(at, {})).to.equal('https://example.com/home');
  });

  it('opens an app URL only through the app page, falling back to the link URL', async () => {
    const { link } = await linkWithRules({
      rules: [{ url: 'myapp://open/item?id=7', when: { device: ['iphone'] } }],
    });
    for (let i = 0; i < 2; i += 1) {
      const phone = await visit(app, `/${link.alias}`, { headers: { 'user-agent': IPHONE } });
      expect(phone.status).to.equal(200);
      expect(phone.headers.get('content-type')).to.match(/^text\/html/);
      const policy = phone.headers.get('content-security-policy') ?? '';
      const nonce = /script-src 'nonce-([^']+)'/.exec(policy)?.[1];
      expect(nonce, policy).to.be.a('string');
      expect(phone.text).to.include(`<script nonce="${nonce}">`);
      expect(phone.text).to.include('location.href="myapp://open/item?id=7"');
      expect(phone.text).to.include('location.replace("https://example.com/home")');
      expect(phone.text).to.include('href="https://example.com/home"');
    }
    const desktop = await visit(app, `/${link.alias}`, { headers: { 'user-agent': WINDOWS } });
    expect(desktop.status).to.equal(302);
    expect(desktop.headers.get('location')).to.equal('https://example.com/home');
  });

  it('refuses an app URL without device, and schemes a browser would run', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const cases: Array<[unknown, string]> = [
      [
        { url: 'myapp://x', when: { os: ['ios'] } },
        'rules[0].url may be an app URL only in a rule with device',
      ],
      [
        { url: 'javascript://alert(1)', when: { device: ['iphone'] } },
        'rules[0].url must be an http or https URL, or an app URL (myapp://...)',
      ],
      [
        { url: 'data://text/html,hi', when: { device: ['iphone'] } },
        'rules[0].url must be an http or https URL, or an app URL (myapp://...)',
      ],
    ];
    for (const [rule, message] of cases) {
      const res = await api.post('/api/url/add', { url: 'https://example.com/', rules: [rule] });
      expect(res.status, message).to.equal(422);
      expect(res.body).to.deep.include({ error: 1, message });
    }
  });

  it('refuses invalid rules with 422 naming the rule and the key', async () => {
    const { apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const bad = [...RULES.slice(0, 2), { url: 'https://x.test/', when: { ip: ['10.0.0.0/33'] } }];
    const res = await api.post('/api/url/add', { url: 'https://example.com/', rules: bad });
    expect(res.status).to.equal(422);
    expect(res.body).to.deep.include({
      error: 1,
      message: 'rules[2].when.ip[0] must be an IP address or a CIDR range',
    });
    const many = Array.from({ length: 51 }, () => RULES[0]);
    const tooMany = await api.post('/api/url/add', { url: 'https://example.com/', rules: many });
    expect(tooMany.status).to.equal(422);
    expect(tooMany.body).to.deep.include({
      error: 1,
      message: 'rules must contain less than or equal to 50 items',
    });
  });
});
