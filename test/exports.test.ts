import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, visit } from './support/links';
import { applyPastVisits, CHROME, GOOGLEBOT } from './support/stats';
import { createTestUser } from './support/users';
import { drainVisits } from './support/visits';

describe('exports', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({ COUNTRY_HEADER: 'cf-ipcountry' });
  });
  after(() => app.close());

  describe('GET /api/urls/export', () => {
    it("streams the caller's links with their clicks as CSV, oldest first, as a download", async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const first = await createLink(app, apiKey, {
        url: 'https://example.com/a',
        title: 'One, "quoted"',
      });
      const second = await createLink(app, apiKey, { url: 'https://example.com/b', title: '=1+2' });
      const stranger = await createTestUser();
      await createLink(app, stranger.apiKey, { url: 'https://example.com/not-mine' });
      for (let i = 0; i < 2; i += 1)
        await visit(app, `/${second.alias}`, { headers: { 'user-agent': CHROME } });
      await drainVisits(app);

      const res = await api.get('/api/urls/export');
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
      expect(res.headers.get('content-disposition')).to.match(
        /^attachment; filename="linkqr-links-\d{4}-\d{2}-\d{2}\.csv"$/,
      );
      const lines = res.text.trimEnd().split('\n');
      expect(lines[0]).to.equal('id,alias,shorturl,longurl,title,clicks,date');
      expect(lines).to.have.length(3);
      expect(lines[1]).to.match(
        new RegExp(
          `^${first.id},${first.alias},${first.shorturl},https://example.com/a,"One, ""quoted""",0,\\d{4}-`,
        ),
      );
      // A title a spreadsheet would evaluate is written as text.
      expect(lines[2]).to.match(new RegExp(`^${second.id},${second.alias},.*,'=1\\+2,2,`));
      expect(res.text).not.to.contain('not-mine');
    });

    it('answers JSON lines with format=jsonl, and 400 for an unknown format', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/j' });
      const api = client(app.url, apiKey);
      const res = await api.get('/api/urls/export?format=jsonl');
      expect(res.headers.get('content-type')).to.equal('application/x-ndjson; charset=utf-8');
      const rows = res.text
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      expect(rows).to.have.length(1);
      expect(rows[0]).to.include({ id: link.id, longurl: 'https://example.com/j', clicks: 0 });
      const bad = await api.get('/api/urls/export?format=xlsx');
      expect(bad.status).to.equal(400);
      expect(bad.body).to.deep.equal({
        error: 1,
        message: 'Invalid query: format must be one of [csv, jsonl]',
        code: 'bad_query',
        field: 'format',
      });
    });
  });

  describe('GET /api/url/:id/visits and /api/qr/:id/visits', () => {
    it('streams time, country, referrer, browser, OS and bot, never the visitor hash', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      await applyPastVisits(app, { kind: 'link', id: link.id }, [
        { at: '2024-05-01T10:00:00Z', visitor: 'visitor-hash-one', referrer: 'https://www.t.co/x' },
        {
          at: '2024-05-02T10:00:00Z',
          visitor: 'visitor-hash-two',
          userAgent: GOOGLEBOT,
          country: 'France',
        },
      ]);
      const api = client(app.url, apiKey);
      const csv = await api.get(`/api/url/${link.id}/visits`);
      expect(csv.status).to.equal(200);
      expect(csv.headers.get('content-disposition')).to.equal(
        `attachment; filename="linkqr-link-${link.id}-visits.csv"`,
      );
      expect(csv.text).to.equal(
        [
          'time,country,referrer,browser,os,bot',
          '2024-05-01T10:00:00.000Z,Germany,t.co,Chrome,Windows,false',
          '2024-05-02T10:00:00.000Z,France,Direct,Unknown,Unknown,true',
          '',
        ].join('\n'),
      );
      expect(csv.text).not.to.contain('visitor-hash');

      const jsonl = await api.get(`/api/url/${link.id}/visits?format=jsonl&from=2024-05-02`);
      expect(jsonl.headers.get('content-disposition')).to.equal(
        `attachment; filename="linkqr-link-${link.id}-visits.jsonl"`,
      );
      expect(
        jsonl.text
          .trimEnd()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).to.deep.equal([
        {
          time: '2024-05-02T10:00:00.000Z',
          country: 'France',
          referrer: 'Direct',
          browser: 'Unknown',
          os: 'Unknown',
          bot: true,
        },
      ]);
      const firstDay = await api.get(`/api/url/${link.id}/visits?to=2024-05-01`);
      expect(firstDay.text.trimEnd().split('\n')).to.have.length(2);
    });

    it("exports a QR code's scans, and answers 404 for another user's link or QR code", async () => {
      const owner = await createTestUser();
      const api = client(app.url, owner.apiKey);
      const qr = await api.post<{ id: number }>('/api/qr/add', { type: 'text', data: 'hi' });
      await applyPastVisits(app, { kind: 'qr', id: qr.body.id }, [{ at: '2024-05-01T10:00:00Z' }]);
      const scans = await api.get(`/api/qr/${qr.body.id}/visits?format=jsonl`);
      expect(scans.status).to.equal(200);
      expect(scans.text.trimEnd().split('\n')).to.have.length(1);

      const link = await createLink(app, owner.apiKey, { url: 'https://example.com/' });
      const other = client(app.url, (await createTestUser()).apiKey);
      for (const path of [`/api/qr/${qr.body.id}/visits`, `/api/url/${link.id}/visits`]) {
        const res = await other.get(path);
        expect(res.status, path).to.equal(404);
        expect(res.body).to.have.property('error', 1);
      }
    });

    it('answers 422 naming the parameter for a bad or reversed range', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      const api = client(app.url, apiKey);
      const bad = await api.get(`/api/url/${link.id}/visits?from=soon`);
      expect(bad.status).to.equal(422);
      expect(bad.body).to.deep.equal({
        error: 1,
        message: 'from must be a date (YYYY-MM-DD) or an ISO 8601 date-time',
        code: 'validation_failed',
        field: 'from',
      });
      const reversed = await api.get(`/api/url/${link.id}/visits?from=2024-02-01&to=2024-01-01`);
      expect(reversed.status).to.equal(422);
      expect(reversed.body).to.deep.equal({
        error: 1,
        message: 'from must be before to',
        code: 'validation_failed',
        field: 'from',
      });
    });
  });
});
