import { expect } from 'chai';
import { summariseClicks } from '../../src/webhooks/webhook-clicks';
import {
  columnsOf,
  toBuckets,
  visitsOf,
  withoutEntries,
  type BucketDoc,
  type BucketVisit,
} from '../../src/visits/visit-bucket-form';
import { hourlyLabelsRollup, hourlyRollup } from '../../src/stats/stats-rollup';
import { countsRollup, totalsRollup } from '../../src/visits/visit-rollups';
import type { CapturedVisit } from '../../src/visits/visits.types';

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const base = Date.UTC(2026, 0, 1, 10, 59, 59, 500);

function click(i: number, overrides: Partial<CapturedVisit> = {}): CapturedVisit {
  return {
    kind: 'link',
    targetId: 7,
    at: base + i * 300,
    visitor: `visitor-${i % 2}`,
    country: i % 3 ? 'Germany' : 'France',
    userAgent: chrome,
    referrer: i % 2 ? 'https://www.facebook.com/post' : '',
    ...overrides,
  };
}

const batch = { applier: 'atest', seq: 3 };
const clicks = [
  click(0),
  click(1),
  click(2, { variant: 'https://b.example/' }),
  click(3, { userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' }),
  click(4, { kind: 'qr' }),
  click(5),
];
const queued = clicks.map((visit, i) => ({ entryId: `c${i}`, visit }));

/** What the first stored form held for these clicks: a subdocument each. */
function firstForm(bucket: BucketDoc): BucketDoc {
  const old: BucketDoc = { ...bucket, visits: visitsOf(bucket) };
  delete old.labels;
  delete old.packed;
  return old;
}

function expected(i: number, labels: Partial<BucketVisit> = {}): BucketVisit {
  const visit = clicks[i] as CapturedVisit;
  const social = visit.referrer ? 'facebook' : null;
  return {
    entryId: `c${i}`,
    at: new Date(visit.at),
    visitor: visit.visitor,
    country: visit.country,
    referrer: social ? 'facebook.com' : 'Direct',
    browser: 'Chrome',
    os: 'Windows',
    social,
    bot: false,
    ...labels,
  };
}

describe('stored bucket form (pure)', () => {
  const [link, qr] = toBuckets(queued, batch) as [BucketDoc, BucketDoc];

  it('stores one bucket per target, each distinct set of labels once, the clicks in columns', () => {
    expect([link.kind, link.targetId, link._id, qr.kind]).to.deep.equal([
      'link',
      7,
      'link:7:c0',
      'qr',
    ]);
    expect(link.entryIds).to.deep.equal(['c0', 'c1', 'c2', 'c3', 'c5']);
    expect([link.from, link.to]).to.deep.equal([new Date(base), new Date(base + 1500)]);
    expect(link.batch).to.deep.equal(batch);
    // c1 and c5 share theirs.
    expect(link.labels).to.have.length(4);
    expect(link).not.to.have.property('visits');
    expect(JSON.parse(link.packed as string)).to.deep.equal([
      [0, 300, 600, 900, 1500],
      ['visitor-0', 'visitor-1', 'visitor-0', 'visitor-1', 'visitor-1'],
      [0, 1, 2, 3, 1],
    ]);
  });

  it('reads every click back as stored, labels, variant and bot flag included', () => {
    const bot = { browser: 'Unknown', os: 'Unknown', bot: true };
    expect(visitsOf(link)).to.deep.equal([
      expected(0),
      expected(1),
      expected(2, { variant: 'https://b.example/' }),
      expected(3, bot),
      expected(5),
    ]);
  });

  it('reads a bucket from the database as it reads one it built (columns parsed from `packed`)', () => {
    const stored = JSON.parse(JSON.stringify(link), (key, value: unknown) =>
      key === 'from' || key === 'to' ? new Date(value as string) : value,
    ) as BucketDoc;
    expect(visitsOf(stored)).to.deep.equal(visitsOf(link));
  });

  it('reads buckets of the first form (a subdocument per click) alike', () => {
    const old = firstForm(link);
    expect(visitsOf(old)).to.deep.equal(visitsOf(link));
    expect(columnsOf(old).labels).to.have.length(4);
    expect(summariseClicks([old])).to.deep.equal(summariseClicks([link]));
  });

  it('counts either form into the same rollups', () => {
    const old = [firstForm(link), firstForm(qr)];
    for (const rollup of [totalsRollup, countsRollup, hourlyRollup, hourlyLabelsRollup]) {
      expect(rollup(old)).to.deep.equal(rollup([link, qr]));
    }
    expect(totalsRollup([link])[0]?.inc).to.deep.equal({ clicks: 4, facebook: 2, bots: 1 });
    expect(hourlyRollup([link]).map((w) => w.inc)).to.deep.equal([
      { clicks: 2 },
      { clicks: 2, bots: 1 },
    ]);
  });

  it('drops clicks stored elsewhere, re-keyed on the first left, the owner kept', () => {
    const owned = { ...link, userId: 12 };
    const rest = withoutEntries(owned, new Set(['c0', 'c2'])) as BucketDoc;
    expect(rest._id).to.equal('link:7:c1');
    expect(rest.userId).to.equal(12);
    expect(rest.labels).to.have.length(2);
    expect(visitsOf(rest).map((v) => v.entryId)).to.deep.equal(['c1', 'c3', 'c5']);
    expect([rest.from, rest.to]).to.deep.equal([new Date(base + 300), new Date(base + 1500)]);
    expect(withoutEntries(owned, new Set(link.entryIds))).to.equal(null);
    expect(withoutEntries(owned, new Set(['other']))).to.equal(owned);
  });

  it('refuses packed clicks that do not match the click ids', () => {
    const broken = { ...link, entryIds: [...link.entryIds, 'c9'] };
    expect(() => columnsOf(broken)).to.throw(/do not match its 6 click ids/);
  });
});
