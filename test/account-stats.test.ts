import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { Link } from '../src/links/link.model';
import { QrCode } from '../src/qr-codes/qr-code.model';
import { accountTarget, backfillAccount } from '../src/stats/account-rollup';
import { VisitHour, VisitHourLabel } from '../src/stats/stats.model';
import { applyVisits, type QueuedVisit } from '../src/visits/visit-apply';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink } from './support/links';
import { captureQueries, scans, type CapturedQuery } from './support/query-plans';
import { applyPastVisits, CHROME, FIREFOX, GOOGLEBOT } from './support/stats';
import { createTestUser } from './support/users';

type TestClient = ReturnType<typeof client>;

interface SeriesBody {
  data: {
    series: Array<{ t: string; clicks: number; uniqueClicks: number }>;
    totals: { clicks: number; uniqueClicks: number };
    top?: Record<string, string>;
  };
}

const RANGE = 'from=2024-03-01&to=2024-03-03';
const QUERIES = [
  `interval=day&${RANGE}`,
  `interval=hour&from=2024-03-01T00:00:00Z&to=2024-03-01T23:59:59Z`,
  `interval=day&${RANGE}&by=country`,
  `interval=day&${RANGE}&by=browser`,
];

/** Per bucket and in total, the sum of the per-link and per-code series; tops summed by label. */
async function perTargetSum(api: TestClient, paths: string[], query: string) {
  const series = await Promise.all(
    paths.map(async (p) => (await api.get<SeriesBody>(`${p}/stats?${query}`)).body.data),
  );
  const first = series[0] as SeriesBody['data'];
  const clicks = first.series.map((_, i) =>
    series.reduce((n, s) => n + (s.series[i]?.clicks ?? 0), 0),
  );
  const top: Record<string, number> = {};
  for (const s of series) {
    for (const [label, n] of Object.entries(s.top ?? {}))
      top[label] = (top[label] ?? 0) + Number(n);
  }
  return { clicks, total: clicks.reduce((a, b) => a + b, 0), top };
}

describe('account statistics from the per-account rollup (issue 22)', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  /** A user with `links` links and a QR code, clicks spread over hours, countries, browsers. */
  async function account(links: number) {
    const { user, apiKey } = await createTestUser();
    const api = client(app.url, apiKey);
    const paths: string[] = [];
    for (let i = 0; i < links; i += 1) {
      const link = await createLink(app, apiKey, { url: `https://example.com/${i}` });
      paths.push(`/api/url/${link.id}`);
      await applyPastVisits(app, { kind: 'link', id: link.id }, [
        { at: '2024-03-01T09:10:00Z', country: 'DE', userAgent: CHROME, visitor: 'v1' },
        { at: '2024-03-01T09:40:00Z', country: 'FR', userAgent: FIREFOX, visitor: `v${i}` },
        { at: `2024-03-0${1 + (i % 3)}T15:00:00Z`, country: 'US', userAgent: CHROME },
        { at: '2024-03-02T10:00:00Z', userAgent: GOOGLEBOT },
      ]);
    }
    const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'acct' });
    expect(qr.status, qr.text).to.equal(200);
    paths.push(`/api/qr/${qr.body.id}`);
    await applyPastVisits(app, { kind: 'qr', id: qr.body.id }, [
      { at: '2024-03-03T08:00:00Z', country: 'DE', userAgent: FIREFOX },
    ]);
    return { user, api, paths };
  }

  async function expectAccountIsSum(api: TestClient, paths: string[]) {
    for (const query of QUERIES) {
      const res = await api.get<SeriesBody>(`/api/stats?${query}`);
      expect(res.status, res.text).to.equal(200);
      const sum = await perTargetSum(api, paths, query);
      const { data } = res.body;
      expect(
        data.series.map((p) => p.clicks),
        query,
      ).to.deep.equal(sum.clicks);
      expect(data.totals.clicks, query).to.equal(sum.total);
      if (data.top) {
        const top = Object.fromEntries(Object.entries(data.top).map(([k, v]) => [k, Number(v)]));
        expect(top, query).to.deep.equal(sum.top);
      }
      for (const p of data.series) expect(p.uniqueClicks).to.be.at.most(p.clicks);
      expect(data.totals.uniqueClicks).to.be.at.most(data.totals.clicks);
    }
  }

  it('equals the sum of the per-link and per-code series, bucket by bucket and in the tops', async () => {
    const { api, paths } = await account(4);
    await expectAccountIsSum(api, paths);
    const day = await api.get<SeriesBody>(`/api/stats?interval=day&${RANGE}`);
    // 4 links x 3 people + the code's 1; the bot is not a click.
    expect(day.body.data.totals.clicks).to.equal(13);
  });

  it('counts a redelivered batch into the account once, as into the links', async () => {
    const { user, apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/replay' });
    const batch: QueuedVisit[] = [0, 1, 2].map((i) => ({
      entryId: `replay-${randomBytes(6).toString('hex')}-${i}`,
      visit: {
        kind: 'link',
        targetId: link.id,
        at: Date.parse('2024-04-01T12:00:00Z'),
        visitor: `p${i}`,
        country: 'DE',
        userAgent: CHROME,
        referrer: '',
      },
    }));
    await applyVisits(batch, app.deps.redis, app.deps.keys);
    await applyVisits(batch, app.deps.redis, app.deps.keys, { mayBeRedelivered: true });
    const hour = await VisitHour.findOne({ target: accountTarget(user.id) }).lean();
    expect(hour?.clicks).to.equal(3);
    const api = client(app.url, apiKey);
    await expectAccountIsSum(api, [`/api/url/${link.id}`]);
  });

  it('takes a deleted link out of the account, leaving no guard field behind', async () => {
    const { user, api, paths } = await account(3);
    const [gone] = paths;
    const del = await api.delete(`${gone}/delete`);
    expect(del.status, del.text).to.equal(200);
    await expectAccountIsSum(api, paths.slice(1));
    // No guard field is left behind on the account's documents.
    const marked = await VisitHour.collection.countDocuments({
      target: accountTarget(user.id),
      [`g.rm_link_${(gone as string).split('/').pop()}`]: { $exists: true },
    });
    expect(marked).to.equal(0);
  });

  it('/api/stats sends no $in over link ids and no query on links, whatever the number of links', async function () {
    this.timeout(60_000);
    const small = await account(1);
    const large = await account(6);
    const during = async (api: TestClient, query: string): Promise<CapturedQuery[]> => {
      const capture = captureQueries();
      try {
        const res = await api.get(`/api/stats?${query}`);
        expect(res.status, res.text).to.equal(200);
      } finally {
        capture.stop();
      }
      // Only what the statistics read (the key check reads users and keys).
      return capture.queries.filter((q) =>
        [VisitHour, VisitHourLabel, Link, QrCode].some(
          (m) => m.collection.collectionName === q.collection,
        ),
      );
    };
    for (const query of [`interval=day&${RANGE}&by=country`, `interval=hour&${RANGE}`]) {
      const few = await during(small.api, query);
      const many = await during(large.api, query);
      expect(many.length, query).to.equal(few.length);
      for (const q of many) {
        expect(q.collection).to.be.oneOf([
          VisitHour.collection.collectionName,
          VisitHourLabel.collection.collectionName,
        ]);
        expect(JSON.stringify(q.filter), query).not.to.contain('$in');
        expect(q.filter.target).to.equal(accountTarget(large.user.id));
      }
      expect(await scans(many)).to.deep.equal([]);
    }
  });

  it('the migration builds the rollup of an account counted before it existed', async () => {
    const { user, api, paths } = await account(3);
    const target = accountTarget(user.id);
    await Promise.all([VisitHour.deleteMany({ target }), VisitHourLabel.deleteMany({ target })]);
    const empty = await api.get<SeriesBody>(`/api/stats?interval=day&${RANGE}`);
    expect(empty.body.data.totals.clicks).to.equal(0);

    const sketches = { redis: app.deps.redis, keys: app.deps.keys };
    expect(await backfillAccount(user.id, sketches)).to.equal(true);
    // A rerun (a crash after the writes) adds nothing twice.
    await backfillAccount(user.id, sketches);
    await expectAccountIsSum(api, paths);
    const day = await api.get<SeriesBody>(`/api/stats?interval=day&${RANGE}`);
    expect(day.body.data.totals.uniqueClicks).to.be.greaterThan(0);
  });
});
