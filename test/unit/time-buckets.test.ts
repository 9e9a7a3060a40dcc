import { expect } from 'chai';
import { bucketIndex, bucketLabel, bucketRange, MAX_BUCKETS } from '../../src/stats/time-buckets';

const labels = (r: ReturnType<typeof bucketRange>) => r.starts.map((s) => bucketLabel(s, r.tz));

describe('time buckets (pure)', () => {
  it('cuts a range into local days of the zone, a date-only `to` included whole', () => {
    const r = bucketRange({
      interval: 'day',
      tz: 'America/New_York',
      from: '2024-01-30',
      to: '2024-02-01',
    });
    expect(labels(r)).to.deep.equal([
      '2024-01-30T00:00:00-05:00',
      '2024-01-31T00:00:00-05:00',
      '2024-02-01T00:00:00-05:00',
    ]);
    expect(r.to.toISOString()).to.equal('2024-02-02T05:00:00.000Z');
  });

  it('keeps local midnights across a DST change (a 23-hour day in Berlin)', () => {
    const r = bucketRange({
      interval: 'day',
      tz: 'Europe/Berlin',
      from: '2024-03-30',
      to: '2024-04-01',
    });
    expect(labels(r)).to.deep.equal([
      '2024-03-30T00:00:00+01:00',
      '2024-03-31T00:00:00+01:00',
      '2024-04-01T00:00:00+02:00',
    ]);
    expect((r.starts[2] as number) - (r.starts[1] as number)).to.equal(23 * 3_600_000);
  });

  it('starts weeks on Monday and months on the 1st', () => {
    const weeks = bucketRange({
      interval: 'week',
      tz: 'UTC',
      from: '2024-01-03',
      to: '2024-01-10',
    });
    expect(labels(weeks)).to.deep.equal(['2024-01-01T00:00:00Z', '2024-01-08T00:00:00Z']);
    const months = bucketRange({
      interval: 'month',
      tz: 'UTC',
      from: '2024-01-31',
      to: '2024-03-01',
    });
    expect(labels(months)).to.deep.equal([
      '2024-01-01T00:00:00Z',
      '2024-02-01T00:00:00Z',
      '2024-03-01T00:00:00Z',
    ]);
  });

  it('defaults to the last 30 days up to now', () => {
    const now = new Date('2024-06-15T12:34:00Z');
    const r = bucketRange({ interval: 'day', tz: 'UTC' }, now);
    expect(r.starts).to.have.length(31);
    expect(labels(r)[0]).to.equal('2024-05-16T00:00:00Z');
    expect(r.to).to.deep.equal(now);
  });

  it(`refuses more than ${MAX_BUCKETS} buckets, a reversed range and an unknown zone`, () => {
    expect(() =>
      bucketRange({ interval: 'hour', tz: 'UTC', from: '2024-01-01', to: '2024-12-31' }),
    ).to.throw(/^interval: the range holds more than 5000 hour buckets/);
    expect(() =>
      bucketRange({ interval: 'day', tz: 'UTC', from: '2024-01-02', to: '2024-01-01' }),
    ).to.throw('from must be before to');
    expect(() => bucketRange({ interval: 'day', tz: 'Europe/Atlantis' })).to.throw(
      'tz: unknown time zone Europe/Atlantis',
    );
    expect(() => bucketRange({ interval: 'day', tz: 'UTC', to: '31/01/2024' })).to.throw(
      /^to must be a date/,
    );
  });

  it('finds the bucket holding an instant', () => {
    const starts = [100, 200, 300];
    expect([50, 100, 199, 200, 350].map((t) => bucketIndex(starts, t))).to.deep.equal([
      -1, 0, 0, 1, 2,
    ]);
  });
});
