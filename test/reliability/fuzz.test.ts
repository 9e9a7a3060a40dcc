import { expect } from 'chai';
import fc from 'fast-check';
import http from 'node:http';
import { startTestApp, type TestApp } from '../support/app-harness';
import { client } from '../support/http';
import { createLink } from '../support/links';
import { createTestUser, uniqueName } from '../support/users';

/** Fixed, so a failure is reproducible; bounded, so `npm test` stays fast. */
const SEED = 1104;
const API_RUNS = 600;
const PUBLIC_RUNS = 300;

interface Answer {
  status: number;
  type: string;
  text: string;
}

interface Sent {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function send(agent: http.Agent, base: URL, req: Sent): Promise<Answer> {
  // Node sends a DELETE's body without a length unless told: that would be two requests.
  const length =
    req.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(req.body)) };
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      {
        host: base.hostname,
        port: base.port,
        agent,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, ...length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            text: Buffer.concat(chunks).toString(),
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(req.body);
  });
}

const segment = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9_.-]{0,12}$/),
  fc.constantFrom(
    '%ff',
    '%',
    '%E0%A4%A',
    '%2F',
    '%00',
    '..',
    '__proto__',
    'constructor',
    '-1',
    '0',
    '1e3',
    '9'.repeat(30),
  ),
  fc.integer({ min: -5, max: 2_000_000_000 }).map(String),
);

const query = fc
  .dictionary(
    fc.constantFrom('limit', 'page', 'order', 'short', 'q', 'sort', 'a[b]', '%ff', 'type'),
    fc.oneof(fc.stringMatching(/^[A-Za-z0-9%._-]{0,8}$/), fc.integer().map(String)),
    { maxKeys: 3 },
  )
  .map((q) => {
    const pairs = Object.entries(q).map(([k, v]) => `${k}=${v}`);
    return pairs.length ? `?${pairs.join('&')}` : '';
  });

const FIELDS = [
  'url',
  'custom',
  'password',
  'expiry',
  'type',
  'data',
  'name',
  'domain',
  'pixels',
  'campaign',
  'description',
  'tag',
  'slug',
  'public',
  'color',
  'starred',
  'email',
  'alias',
  'format',
  'logo',
  'background',
  'foreground',
  'size',
  'redirectroot',
  'redirect404',
  'metatitle',
  'geotarget',
];

const body = fc.oneof(
  fc
    .dictionary(fc.constantFrom(...FIELDS), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 })
    .map((o) => JSON.stringify(o)),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.string({ unit: 'binary', maxLength: 40 }),
  // Issue 27: nested past any sane depth (`[[[[...` or `{"a":{"a":...`), once answered 500.
  fc
    .tuple(fc.integer({ min: 1, max: 50_000 }), fc.boolean())
    .map(([depth, array]) =>
      array
        ? '['.repeat(depth) + ']'.repeat(depth)
        : '{"a":'.repeat(depth) + '1' + '}'.repeat(depth),
    ),
  fc.constantFrom(
    '{"type":"email","data":{"email":"a@b.co","subject":"\\ud800"}}',
    '{"url":"https://x.test/\\udfff"}',
    '{',
    'a=1&b=2',
  ),
);

const headers = fc.record(
  {
    'content-type': fc.constantFrom(
      'application/json',
      'application/json; charset=utf-16',
      'application/json; charset=nope',
      'text/plain',
      'application/x-www-form-urlencoded',
    ),
    'content-encoding': fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-nope'),
  },
  { requiredKeys: [] },
);

describe('fuzzing: no input gives a 5xx, and no user reaches another (issue 11)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let base: URL;
  let agent: http.Agent;
  let keyA: string;
  let keyB: string;
  /** Text in every resource of B: it must never appear in an answer to anybody else. */
  const marker = `bsecret${uniqueName('m')}`;
  const ids: Record<string, string[]> = {};
  let snapshotB: () => Promise<string>;
  const history: string[] = [];

  before(async () => {
    app = await startTestApp();
    base = new URL(app.url);
    agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    keyA = (await createTestUser()).apiKey;
    keyB = (await createTestUser()).apiKey;
    const b = client(app.url, keyB);
    const link = await createLink(app, keyB, {
      url: `https://example.com/${marker}`,
      custom: marker.slice(0, 30),
    });
    const qr = await b.post<{ id: number }>('/api/qr/add', { type: 'text', data: marker });
    const campaign = await b.post<{ id: number }>('/api/campaign/add', {
      name: marker,
      slug: marker.slice(0, 20),
      public: true,
    });
    const channel = await b.post<{ id: number }>('/api/channel/add', { name: marker });
    const pixel = await b.post<{ id: number }>('/api/pixel/add', {
      type: 'gtmpixel',
      name: marker,
      tag: 'GTM-AB12CD3',
    });
    for (const r of [qr, campaign, channel, pixel]) expect(r.status, r.text).to.equal(200);
    ids.B = [link.id, qr.body.id, campaign.body.id, channel.body.id, pixel.body.id].map(String);
    const paths = [
      '/api/account',
      '/api/urls',
      '/api/qr',
      '/api/campaigns',
      '/api/channels',
      '/api/pixels',
      `/api/url/${link.id}`,
      `/api/qr/${qr.body.id}`,
      `/api/channel/${channel.body.id}`,
    ];
    snapshotB = async () => {
      const answers = await Promise.all(paths.map((p) => b.get(p)));
      return answers.map((a) => `${a.status} ${a.text}`).join('\n');
    };
  });
  after(async () => {
    agent.destroy();
    await app.close();
  });

  const id = () => fc.oneof(fc.constantFrom(...ids.B!), segment);
  const apiPath = () =>
    fc.oneof(
      fc.constantFrom(
        '/account',
        '/account/update',
        '/urls',
        '/url/add',
        '/qr',
        '/qr/add',
        '/campaigns',
        '/campaign/add',
        '/channels',
        '/channel/add',
        '/domains',
        '/domain/add',
        '/pixels',
        '/pixel/add',
        '/bio',
        '/bio/add',
        '/overlay',
        '/splash',
        '/nothing',
      ),
      fc
        .tuple(
          fc.constantFrom('url', 'qr', 'campaign', 'channel', 'domain', 'pixel', 'bio'),
          id(),
          fc.constantFrom('', '/update', '/delete'),
        )
        .map(([r, i, s]) => `/${r}/${i}${s}`),
      fc.tuple(id(), id()).map(([c, l]) => `/campaign/${c}/assign/${l}`),
      fc
        .tuple(id(), fc.constantFrom('link', 'qr', 'campaign', 'bio', 'x'), id())
        .map(([c, t, i]) => `/channel/${c}/assign/${t}/${i}`),
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => `/${s.join('/')}`),
    );

  function expectNoLeak(answer: Answer, sent: Sent): void {
    expect(answer.text.includes(marker), `${sent.method} ${sent.path} showed B's data`).to.equal(
      false,
    );
  }

  it(`/api: ${API_RUNS} generated requests answer below 500, with the JSON failure body, and never show or change B's data`, async () => {
    const before = await snapshotB();
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD'),
        apiPath(),
        query,
        fc.option(body, { nil: undefined }),
        headers,
        fc.constantFrom<'A' | 'none' | 'bad'>('A', 'A', 'A', 'none', 'bad'),
        async (method, path, q, payload, extra, who) => {
          const hdrs: Record<string, string> = { ...extra };
          if (who === 'A') hdrs.authorization = `Bearer ${keyA}`;
          if (who === 'bad') hdrs.authorization = 'Bearer lqr_nope';
          const withBody = payload !== undefined && method !== 'GET' && method !== 'HEAD';
          const sent: Sent = {
            method,
            path: `/api${path}${q}`,
            headers: hdrs,
            body: withBody ? payload : undefined,
          };
          const answer = await send(agent, base, sent);
          history.push(
            `${method} ${sent.path} ${JSON.stringify(hdrs)} ${(sent.body ?? '').slice(0, 200)} -> ${answer.status}`,
          );
          const what = `${history.slice(-3).join('\n')}\n${method} ${sent.path} ${JSON.stringify(hdrs)} ${(sent.body ?? '').slice(0, 200)} -> ${answer.status} ${answer.text.slice(0, 200)}`;
          expect(answer.status, what).to.be.below(500);
          expectNoLeak(answer, sent);
          if (method === 'HEAD') return;
          expect(answer.type, what).to.match(/^application\/json/);
          const parsed = JSON.parse(answer.text) as { error?: unknown; message?: unknown };
          if (answer.status >= 400) {
            expect(parsed.error, what).to.equal(1);
            expect(parsed.message, what).to.be.a('string');
          }
        },
      ),
      { seed: SEED, numRuns: API_RUNS, endOnFailure: true },
    );
    expect(await snapshotB()).to.equal(before);
  });

  it(`public routes: ${PUBLIC_RUNS} generated requests answer below 500, with the HTML page on failure`, async () => {
    const before = await snapshotB();
    const publicPath = fc.oneof(
      segment.map((s) => `/${s}`),
      fc.tuple(fc.constantFrom('qr', 's', 'r', 'b'), segment).map(([p, s]) => `/${p}/${s}`),
      fc.tuple(segment, segment).map(([u, i]) => `/u/${u}/list-${i}`),
      fc.constant(`/${marker.slice(0, 30)}`),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('GET', 'HEAD', 'POST'),
        publicPath,
        query,
        fc.option(body, { nil: undefined }),
        headers,
        async (method, path, q, payload, extra) => {
          const sent: Sent = {
            method,
            path: `${path}${q}`,
            headers: { ...extra },
            body: method === 'POST' ? payload : undefined,
          };
          const answer = await send(agent, base, sent);
          const what = `${method} ${sent.path} ${JSON.stringify(extra)} ${(sent.body ?? '').slice(0, 200)} -> ${answer.status} ${answer.text.slice(0, 200)}`;
          expect(answer.status, what).to.be.below(500);
          if (answer.status >= 400 && method !== 'HEAD')
            expect(answer.type, what).to.match(/^text\/html/);
        },
      ),
      { seed: SEED, numRuns: PUBLIC_RUNS, endOnFailure: true },
    );
    expect(await snapshotB()).to.equal(before);
  });
});
