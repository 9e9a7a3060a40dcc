import { expect } from 'chai';
import { planRollups, rollupOperations } from '../../src/stats/stats-rollup';
import type { DescribedVisit } from '../../src/shared/visits/visits.types';

function visit(at: string, overrides: Partial<DescribedVisit> = {}): DescribedVisit {
  return {
    kind: 'link',
    targetId: 7,
    at: Date.parse(at),
    visitor: 'v1',
    country: 'Germany',
    userAgent: 'ua',
    referrer: '',
    browser: 'Chrome',
    os: 'Windows',
    referrerLabel: 'Direct',
    social: null,
    bot: false,
    ...overrides,
  };
}

describe('hourly rollups (pure)', () => {
  it('sums a batch per target and UTC hour, bots apart, into one upsert each', () => {
    const plan = planRollups([
      visit('2024-01-01T10:05:00Z'),
      visit('2024-01-01T10:55:00Z', { visitor: 'v2', country: 'France' }),
      visit('2024-01-01T10:56:00Z', { bot: true }),
      visit('2024-01-01T11:00:00Z'),
      visit('2024-01-01T11:00:00Z', { kind: 'qr' }),
    ]);
    const ops = rollupOperations(plan, new Map([['link:7|2024-01-01T10:00:00.000Z', 2]]));
    expect(ops.hours.map((o) => 'updateOne' in o && o.updateOne)).to.deep.equal([
      {
        filter: { target: 'link:7', hour: new Date('2024-01-01T10:00:00Z') },
        update: {
          $inc: { clicks: 2, bots: 1, uniques: 2 },
          $setOnInsert: { sketch: 'link:7|2024-01-01' },
        },
        upsert: true,
      },
      {
        filter: { target: 'link:7', hour: new Date('2024-01-01T11:00:00Z') },
        update: {
          $inc: { clicks: 1, bots: 0, uniques: 0 },
          $setOnInsert: { sketch: 'link:7|2024-01-01' },
        },
        upsert: true,
      },
      {
        filter: { target: 'qr:7', hour: new Date('2024-01-01T11:00:00Z') },
        update: {
          $inc: { clicks: 1, bots: 0, uniques: 0 },
          $setOnInsert: { sketch: 'qr:7|2024-01-01' },
        },
        upsert: true,
      },
    ]);
    const countries = ops.labels
      .map((o) => o.updateOne)
      .filter((u) => u.filter.dim === 'country' && u.filter.target === 'link:7')
      .map((u) => [u.filter.hour.toISOString().slice(11, 13), u.filter.label, u.update.$inc.count]);
    expect(countries).to.deep.equal([
      ['10', 'Germany', 1],
      ['10', 'France', 1],
      ['11', 'Germany', 1],
    ]);
  });
});
