import { expect } from 'chai';
import { domainCacheFor } from '../src/domains/domain-cache';
import { linkCacheFor, linkCacheKey } from '../src/links/link-cache';
import { Link } from '../src/links/link.model';
import { createLogger } from '../src/shared/infra/logger';
import { startTestApp, type TestApp } from './support/app-harness';
import { addPixel, FB_TAG } from './support/behaviour';
import { client } from './support/http';
import { createLink, linkCacheLive, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';
import { drainVisits } from './support/visits';

const browser = {
  'user-agent':
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
};

/** Headers that differ per response by design. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

function stableHeaders(headers: Headers): Record<string, string> {
  return Object.fromEntries([...headers].filter(([name]) => !PER_RESPONSE.has(name)));
}

describe('redirect fast path (cached direct links, before the middleware chain)', () => {
  const logged: string[] = [];
  /** The entries of the batched lines (`requests completed`) that the fast path writes. */
  const batched: Array<Record<string, unknown>> = [];
  let app: TestApp;
  before(async () => {
    const logger = createLogger('info', 'linkqr-test', {
      write: (line: string) => {
        const entry = JSON.parse(line) as {
          msg?: string;
          path?: string;
          requests?: Array<Record<string, unknown>>;
        };
        if (entry.msg === 'request completed' && entry.path) logged.push(entry.path);
        if (entry.msg === 'requests completed') batched.push(...(entry.requests ?? []));
      },
    });
    app = await startTestApp({}, { logger });
    await linkCacheLive(app);
  });
  after(() => app.close());
  beforeEach(() => {
    logged.length = 0;
    batched.length = 0;
  });

  /** Whether the normal routes (which write the access log) answered that path. */
  const normalRoutesAnswered = (path: string) => logged.includes(path);

  it('answers a cached link with the same status and headers as the normal routes', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/fast' });
    const first = await visit(app, `/${link.alias}`, { headers: browser });
    expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(true);
    logged.length = 0;
    const second = await visit(app, `/${link.alias}`, {
      headers: { ...browser, 'x-request-id': 'fast-1' },
    });
    expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(false);
    expect(second.status).to.equal(302);
    expect(second.headers.get('x-request-id')).to.equal('fast-1');
    expect(stableHeaders(second.headers)).to.deep.equal(stableHeaders(first.headers));
    expect(second.headers.get('content-security-policy')).to.be.a('string');
    expect(second.headers.get('location')).to.equal('https://example.com/fast');
  });

  it('writes every redirect it answers to the access log, in batches', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/logged' });
    await visit(app, `/${link.alias}`, { headers: browser });
    logged.length = 0;
    const ids = ['fast-log-1', 'fast-log-2', 'fast-log-3'];
    await Promise.all(
      ids.map((id) =>
        visit(app, `/${link.alias}`, { headers: { ...browser, 'x-request-id': id } }),
      ),
    );
    expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(false);
    // A batch is written within ACCESS_BATCH_MS of its first request.
    const deadline = Date.now() + 2_000;
    while (batched.filter((e) => ids.includes(e.reqId as string)).length < ids.length) {
      if (Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    for (const id of ids) {
      const entry = batched.find((e) => e.reqId === id);
      expect(entry, id).to.include({ method: 'GET', path: `/${link.alias}`, status: 302 });
      expect(entry?.ms).to.be.a('number');
    }
  });

  it('counts every click exactly once, whichever path served it', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/count' });
    for (let i = 0; i < 7; i += 1) {
      expect((await visit(app, `/${link.alias}`, { headers: browser })).status).to.equal(302);
    }
    await drainVisits(app);
    const stats = await client(app.url, apiKey).get<{ data: { clicks: number } }>(
      `/api/url/${link.id}`,
    );
    expect(stats.body.data.clicks).to.equal(7);
  });

  it('hands a link with a password to the normal routes, which show the form', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/secret',
      password: 'open sesame',
    });
    for (let i = 0; i < 2; i += 1) {
      logged.length = 0;
      const res = await visit(app, `/${link.alias}`, { headers: browser });
      expect(res.status).to.equal(200);
      expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(true);
    }
  });

  it('hands on a link whose record carries any behaviour it does not know (a splash type, pixels)', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/splash' });
    // What another feature would store; the fast path must never answer such a link itself.
    await Link.collection.updateOne({ id: link.id }, { $set: { type: 'splash', pixels: [3] } });
    await linkCacheFor(app.deps).invalidate([linkCacheKey(0, link.alias)]);
    for (let i = 0; i < 2; i += 1) {
      logged.length = 0;
      await visit(app, `/${link.alias}`, { headers: browser });
      expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(true);
    }
    const cached = linkCacheFor(app.deps).peek(linkCacheKey(0, link.alias));
    expect(cached?.direct).to.equal(false);
  });

  it('answers a link whose parameters are part of its URL, with them in the Location', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/params',
      parameters: [{ name: 'utm_source', value: 'qr' }],
    });
    const first = await visit(app, `/${link.alias}`, { headers: browser });
    expect(first.headers.get('location')).to.equal('https://example.com/params?utm_source=qr');
    logged.length = 0;
    const second = await visit(app, `/${link.alias}`, { headers: browser });
    expect(second.status).to.equal(302);
    expect(second.headers.get('location')).to.equal('https://example.com/params?utm_source=qr');
    expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(false);
  });

  it('hands on a link with a visitor behaviour (a tracking pixel), which shows its page', async () => {
    const { apiKey } = await createTestUser();
    const pixel = await addPixel(app, apiKey, { type: 'fbpixel', tag: FB_TAG });
    const link = await createLink(app, apiKey, {
      url: 'https://example.com/pixel',
      pixels: [pixel],
    });
    for (let i = 0; i < 2; i += 1) {
      logged.length = 0;
      const res = await visit(app, `/${link.alias}`, { headers: browser });
      expect(res.status).to.equal(200);
      expect(normalRoutesAnswered(`/${link.alias}`)).to.equal(true);
    }
    const cached = linkCacheFor(app.deps).peek(linkCacheKey(0, link.alias));
    expect(cached?.direct).to.equal(false);
  });

  it('hands on HEAD, a query string and unknown aliases', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/other' });
    await visit(app, `/${link.alias}`, { headers: browser });
    logged.length = 0;
    const head = await visit(app, `/${link.alias}`, { method: 'HEAD', headers: browser });
    expect(head.status).to.equal(302);
    const query = await visit(app, `/${link.alias}?utm=1`, { headers: browser });
    expect(query.status).to.equal(302);
    expect(logged.filter((p) => p === `/${link.alias}`)).to.have.length(2);
    for (let i = 0; i < 2; i += 1) {
      expect((await visit(app, '/no-such-alias-here', { headers: browser })).status).to.equal(404);
    }
    expect(logged.filter((p) => p === '/no-such-alias-here')).to.have.length(2);
  });
});

describe('redirect fast path: client address and host as Express computes them (TRUST_PROXY)', () => {
  let trusting: TestApp;
  let direct: TestApp;
  before(async () => {
    trusting = await startTestApp({ TRUST_PROXY: 'loopback' });
    direct = await startTestApp({});
    await linkCacheLive(trusting);
    await linkCacheLive(direct);
  });
  after(async () => {
    await trusting.close();
    await direct.close();
  });

  /** Four clicks, the last three on the fast path, from two forwarded addresses. */
  async function uniquesBehindProxy(app: TestApp): Promise<{ clicks: number; unique: number }> {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/proxied' });
    for (const address of ['203.0.113.1', '203.0.113.1', '203.0.113.2', '203.0.113.2']) {
      const res = await visit(app, `/${link.alias}`, {
        headers: { ...browser, 'x-forwarded-for': address },
      });
      expect(res.status).to.equal(302);
    }
    expect(linkCacheFor(app.deps).peek(linkCacheKey(0, link.alias))?.direct).to.equal(true);
    await drainVisits(app);
    const stats = await client(app.url, apiKey).get<{
      data: { clicks: number; uniqueClicks: number };
    }>(`/api/url/${link.id}`);
    return { clicks: stats.body.data.clicks, unique: stats.body.data.uniqueClicks };
  }

  it('tells visitors apart by the forwarded address only behind a trusted proxy', async () => {
    expect(await uniquesBehindProxy(trusting)).to.deep.equal({ clicks: 4, unique: 2 });
    expect(await uniquesBehindProxy(direct)).to.deep.equal({ clicks: 4, unique: 1 });
  });

  it('reads the host from X-Forwarded-Host only behind a trusted proxy', async () => {
    for (const app of [trusting, direct]) {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/host' });
      expect((await visit(app, `/${link.alias}`, { headers: browser })).status).to.equal(302);
      const host = `${uniqueName('nobody')}.example.org`;
      await visit(app, `/${link.alias}`, { headers: { ...browser, 'x-forwarded-host': host } });
      // The fast path hands an unknown host on, and the normal routes look it up (and remember
      // that no domain has it); a host that was never read is never looked up.
      const looked = domainCacheFor(app.deps).peek(host);
      expect(looked, app === trusting ? 'trusting' : 'direct').to.equal(
        app === trusting ? null : undefined,
      );
    }
  });
});
