import { expect } from 'chai';
import { hourlyLabelsRollup, hourlyRollup } from '../../src/stats/stats-rollup';
import type { BucketDoc, BucketVisit } from '../../src/visits/visit-bucket-form';

function visit(at: string, overrides: Partial<BucketVisit> = {}): BucketVisit {
  return {
    entryId: at,
    at: new Date(at),
    visitor: 'v1',
    country: 'Germany',
    referrer: 'Direct',
    browser: 'Chrome',
    os: 'Windows',
    social: null,
    bot: false,
    ...overrides,
  };
}

function bucket(kind: 'link' | 'qr', visits: BucketVisit[]): BucketDoc {
  return {
    _id: `${kind}:7:x`,
    kind,
    targetId: 7,
    from: visits[0]?.at ?? new Date(),
    to: visits[visits.length - 1]?.at ?? new Date(),
    batch: { applier: 'a', seq: 1 },
    entryIds: visits.map((v) => v.entryId),
    visits,
  };
}

describe('hourly rollups (pure)', () => {
  const buckets = [
    bucket('link', [
      visit('2024-01-01T10:05:00Z'),
      visit('2024-01-01T10:55:00Z', { visitor: 'v2', country: 'France' }),
      visit('2024-01-01T10:56:00Z', { bot: true }),
      visit('2024-01-01T11:00:00Z'),
    ]),
    bucket('qr', [visit('2024-01-01T11:00:00Z')]),
  ];

  it('sums clicks and bots per target and UTC hour, one increment each', () => {
    expect(hourlyRollup(buckets).map((w) => [w.filter, w.inc])).to.deep.equal([
      [
        { target: 'link:7', hour: new Date('2024-01-01T10:00:00Z'), sketch: 'link:7|2024-01-01' },
        { clicks: 2, bots: 1 },
      ],
      [
        { target: 'link:7', hour: new Date('2024-01-01T11:00:00Z'), sketch: 'link:7|2024-01-01' },
        { clicks: 1 },
      ],
      [
        { target: 'qr:7', hour: new Date('2024-01-01T11:00:00Z'), sketch: 'qr:7|2024-01-01' },
        { clicks: 1 },
      ],
    ]);
  });

  it('counts labels per hour without bots', () => {
    const countries = hourlyLabelsRollup(buckets)
      .filter((w) => w.filter.dim === 'country' && w.filter.target === 'link:7')
      .map((w) => [
        (w.filter.hour as Date).toISOString().slice(11, 13),
        w.filter.label,
        w.inc.count,
      ]);
    expect(countries).to.deep.equal([
      ['10', 'Germany', 1],
      ['10', 'France', 1],
      ['11', 'Germany', 1],
    ]);
  });
});
