import { dailySketchKey } from '../src/stats/stats-rollup';
import { expect } from 'chai';
import { VisitHour, VisitHourLabel } from '../src/stats/stats.model';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { applyPastVisits, CHROME, FIREFOX, GOOGLEBOT } from './support/stats';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

interface Point {
  t: string;
  clicks: number;
  uniqueClicks: number;
}
interface SeriesBody {
  error: number;
  data: {
    interval: string;
    tz: string;
    from: string;
    to: string;
    series: Point[];
    totals: { clicks: number; uniqueClicks: number };
    by?: string;
    top?: Record<string, string>;
  };
}
interface DetailsBody {
  data: { clicks: number; uniqueClicks: number; topCountries: Record<string, string> };
}

describe('statistics over time', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
  });
  after(() => app.close());

  async function newLink() {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/' });
    return { apiKey, api: client(app.url, apiKey), link };
  }

  it('sums the series buckets to the totals of the statistics object, bots left out', async () => {
    const { api, link } = await newLink();
    const hit = (headers: Record<string, string>) => visit(app, `/${link.alias}`, { headers });
    await hit({ 'user-agent': CHROME, 'cf-ipcountry': 'DE' });
    await hit({ 'user-agent': CHROME, 'cf-ipcountry': 'DE' });
    await hit({ 'user-agent': FIREFOX, 'cf-ipcountry': 'FR' });
    await hit({ 'user-agent': GOOGLEBOT, 'cf-ipcountry': 'US' });
    await drainVisits(app);

    const details = await api.get<DetailsBody>(`/api/url/${link.id}`);
    const res = await api.get<SeriesBody>(`/api/url/${link.id}/stats?interval=hour`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.error).to.equal(0);
    const sum = res.body.data.series.reduce((n, p) => n + p.clicks, 0);
    expect(sum).to.equal(details.body.data.clicks).and.to.equal(3);
    expect(res.body.data.totals).to.deep.equal({
      clicks: details.body.data.clicks,
      uniqueClicks: details.body.data.uniqueClicks,
    });
    expect(res.body.data.interval).to.equal('hour');
    expect(res.body.data.tz).to.equal('UTC');
  });

  it('puts a click at 23:30 UTC on the next day in Europe/Berlin, and on its own day in UTC', async () => {
    const { api, link } = await newLink();
    await applyPastVisits(app, { kind: 'link', id: link.id }, [{ at: '2024-03-04T23:30:00Z' }]);
    const range = 'interval=day&from=2024-03-04&to=2024-03-05';

    const berlin = await api.get<SeriesBody>(`/api/url/${link.id}/stats?${range}&tz=Europe/Berlin`);
    expect(berlin.status, berlin.text).to.equal(200);
    expect(berlin.body.data.series).to.deep.equal([
      { t: '2024-03-04T00:00:00+01:00', clicks: 0, uniqueClicks: 0 },
      { t: '2024-03-05T00:00:00+01:00', clicks: 1, uniqueClicks: 1 },
    ]);
    const utc = await api.get<SeriesBody>(`/api/url/${link.id}/stats?${range}`);
    expect(utc.body.data.series.map((p) => p.clicks)).to.deep.equal([1, 0]);
    expect(utc.body.data.series[0]?.t).to.equal('2024-03-04T00:00:00Z');
  });

  it('answers every bucket of the range, empty ones as zeros', async () => {
    const { api, link } = await newLink();
    await applyPastVisits(app, { kind: 'link', id: link.id }, [
      { at: '2024-01-02T10:00:00Z', visitor: 'a' },
      { at: '2024-01-02T11:00:00Z', visitor: 'a' },
      { at: '2024-01-05T10:00:00Z', visitor: 'b' },
    ]);
    const res = await api.get<SeriesBody>(
      `/api/url/${link.id}/stats?interval=day&from=2024-01-01&to=2024-01-07`,
    );
    expect(
      res.body.data.series.map((p) => [p.t.slice(0, 10), p.clicks, p.uniqueClicks]),
    ).to.deep.equal([
      ['2024-01-01', 0, 0],
      ['2024-01-02', 2, 1],
      ['2024-01-03', 0, 0],
      ['2024-01-04', 0, 0],
      ['2024-01-05', 1, 1],
      ['2024-01-06', 0, 0],
      ['2024-01-07', 0, 0],
    ]);
    expect(res.body.data.totals).to.deep.equal({ clicks: 3, uniqueClicks: 2 });

    const weeks = await api.get<SeriesBody>(
      `/api/url/${link.id}/stats?interval=week&from=2024-01-01&to=2024-01-31`,
    );
    expect(weeks.body.data.series.map((p) => [p.t, p.clicks])).to.deep.equal([
      ['2024-01-01T00:00:00Z', 3],
      ['2024-01-08T00:00:00Z', 0],
      ['2024-01-15T00:00:00Z', 0],
      ['2024-01-22T00:00:00Z', 0],
      ['2024-01-29T00:00:00Z', 0],
    ]);
    const months = await api.get<SeriesBody>(
      `/api/url/${link.id}/stats?interval=month&from=2023-12-01&to=2024-02-10`,
    );
    expect(months.body.data.series.map((p) => [p.t, p.clicks])).to.deep.equal([
      ['2023-12-01T00:00:00Z', 0],
      ['2024-01-01T00:00:00Z', 3],
      ['2024-02-01T00:00:00Z', 0],
    ]);
  });

  it('gives with by= the same top labels as the statistics maps', async () => {
    const { api, link } = await newLink();
    const hit = (country: string, ua = CHROME) =>
      visit(app, `/${link.alias}`, { headers: { 'user-agent': ua, 'cf-ipcountry': country } });
    for (const c of ['DE', 'DE', 'FR', 'IT', 'DE', 'FR']) await hit(c);
    await hit('US', GOOGLEBOT);
    await drainVisits(app);
    const details = await api.get<DetailsBody>(`/api/url/${link.id}`);
    const res = await api.get<SeriesBody>(`/api/url/${link.id}/stats?interval=day&by=country`);
    expect(res.body.data.by).to.equal('country');
    expect(res.body.data.top).to.deep.equal(details.body.data.topCountries);
    expect(res.body.data.top).to.deep.equal({ Germany: '3', France: '2', Italy: '1' });
  });

  it("sums every link and QR code of the caller in /api/stats, and nobody else's", async () => {
    const { apiKey, api, link } = await newLink();
    const other = await createLink(app, apiKey, { url: 'https://example.org/' });
    const qr = await api.post<{ id: number }>('/api/qr/add', {
      type: 'link',
      data: 'https://example.com/qr',
    });
    expect(qr.status, qr.text).to.equal(200);
    const stranger = await newLink();
    const at = '2024-06-10T12:00:00Z';
    await applyPastVisits(app, { kind: 'link', id: link.id }, [{ at }, { at }]);
    await applyPastVisits(app, { kind: 'link', id: other.id }, [{ at: '2024-06-11T12:00:00Z' }]);
    await applyPastVisits(app, { kind: 'qr', id: qr.body.id }, [{ at }]);
    await applyPastVisits(app, { kind: 'link', id: stranger.link.id }, [{ at }, { at }, { at }]);

    const range = 'interval=day&from=2024-06-10&to=2024-06-11';
    const res = await api.get<SeriesBody>(`/api/stats?${range}`);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.series.map((p) => p.clicks)).to.deep.equal([3, 1]);
    expect(res.body.data.totals.clicks).to.equal(4);
    const qrSeries = await api.get<SeriesBody>(`/api/qr/${qr.body.id}/stats?${range}`);
    expect(qrSeries.body.data.series.map((p) => p.clicks)).to.deep.equal([1, 0]);
  });

  it('forgets the rollups and sketches of a deleted link', async () => {
    const { api, link } = await newLink();
    await applyPastVisits(app, { kind: 'link', id: link.id }, [{ at: '2024-02-01T10:00:00Z' }]);
    const target = `link:${link.id}`;
    expect(await VisitHour.countDocuments({ target })).to.equal(1);
    const sketch = dailySketchKey(app.deps.keys, `${target}|2024-02-01`);
    expect(await app.deps.redis.exists(sketch)).to.equal(1);

    await api.delete(`/api/url/${link.id}/delete`);
    expect(await VisitHour.countDocuments({ target })).to.equal(0);
    expect(await VisitHourLabel.countDocuments({ target })).to.equal(0);
    expect(await app.deps.redis.exists(sketch)).to.equal(0);
  });

  it("answers 404 for another user's link or QR code, as for a missing one", async () => {
    const owner = await newLink();
    const qr = await owner.api.post<{ id: number }>('/api/qr/add', {
      type: 'text',
      data: 'hello',
    });
    const { api } = await newLink();
    for (const path of [
      `/api/url/${owner.link.id}/stats`,
      `/api/qr/${qr.body.id}/stats`,
      '/api/url/999999999/stats',
    ]) {
      const res = await api.get(path);
      expect(res.status, path).to.equal(404);
      expect(res.body).to.have.property('error', 1);
    }
  });

  it('answers 422 naming the parameter for a bad range, interval or zone', async () => {
    const { api, link } = await newLink();
    const cases: Array<[string, RegExp, string]> = [
      ['from=2024-02-01&to=2024-01-01', /^from /, 'from'],
      ['interval=hour&from=2020-01-01&to=2024-01-01', /^interval: .*5000/, 'interval'],
      ['tz=Mars/Olympus', /^tz: unknown time zone Mars\/Olympus/, 'tz'],
      ['from=yesterday', /^from must be a date/, 'from'],
      ['interval=fortnight', /^interval must be one of/, 'interval'],
      ['by=city', /^by must be one of/, 'by'],
    ];
    for (const [query, message, field] of cases) {
      const res = await api.get<{ error: number; message: string; code: string; field: string }>(
        `/api/url/${link.id}/stats?${query}`,
      );
      expect(res.status, query).to.equal(422);
      expect(res.body).to.include({ error: 1, code: 'validation_failed', field });
      expect(res.body.message, query).to.match(message);
    }
  });
});
