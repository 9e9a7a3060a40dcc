import { expect } from 'chai';
import { countryName, hashVisitor, resolveCountry } from '../../src/visits/visit-capture';
import { visitorHasher } from '../../src/visits/visit-recorder';
import { clickLabelsOf, referrerLabel, socialNetworkOf } from '../../src/visits/visit-describe';
import { decodeEntry, decodeVisit, encodeVisit, encodeVisits } from '../../src/visits/visit-stream';
import type { CapturedVisit } from '../../src/visits/visits.types';

const chrome =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';
const iphone =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1';

const visit = (overrides: Partial<CapturedVisit> = {}): CapturedVisit => ({
  kind: 'qr',
  targetId: 1,
  at: 0,
  visitor: 'v',
  country: 'Unknown',
  userAgent: chrome,
  referrer: '',
  ...overrides,
});

describe('visit description (pure)', () => {
  it('labels referrers by host without www, and no referrer as Direct', () => {
    expect(referrerLabel('https://www.Example.com/a?b=c')).to.equal('example.com');
    expect(referrerLabel('')).to.equal('Direct');
    expect(referrerLabel('not a url')).to.equal('Unknown');
  });

  it('recognises the three social networks, subdomains and short hosts included', () => {
    expect(socialNetworkOf('l.facebook.com')).to.equal('facebook');
    expect(socialNetworkOf('t.co')).to.equal('twitter');
    expect(socialNetworkOf('x.com')).to.equal('twitter');
    expect(socialNetworkOf('lnkd.in')).to.equal('linkedin');
    expect(socialNetworkOf('notfacebook.com')).to.equal(null);
  });

  it('reads browser and OS from the User-Agent', () => {
    const d = clickLabelsOf(visit({ userAgent: iphone }));
    expect([d.browser, d.os, d.bot]).to.deep.equal(['Mobile Safari', 'iOS', false]);
    const c = clickLabelsOf(visit());
    expect([c.browser, c.os]).to.deep.equal(['Chrome', 'Windows']);
  });

  it('answers the same for a User-Agent it has parsed before', () => {
    const first = clickLabelsOf(visit({ userAgent: iphone }));
    const again = clickLabelsOf(visit({ userAgent: iphone, referrer: 'https://t.co/x' }));
    expect([again.browser, again.os, again.bot]).to.deep.equal([
      first.browser,
      first.os,
      first.bot,
    ]);
    expect(again.social).to.equal('twitter');
  });

  it('flags crawlers, link-preview bots and requests without a User-Agent as bots', () => {
    expect(
      clickLabelsOf(visit({ userAgent: 'Googlebot/2.1 (+http://www.google.com/bot.html)' })).bot,
    ).to.equal(true);
    expect(
      clickLabelsOf(
        visit({ userAgent: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)' }),
      ).bot,
    ).to.equal(true);
    expect(clickLabelsOf(visit({ userAgent: 'facebookexternalhit/1.1' })).bot).to.equal(true);
    expect(clickLabelsOf(visit({ userAgent: '' })).bot).to.equal(true);
  });

  it('names countries in English from ISO codes, Unknown otherwise', () => {
    expect(countryName('de')).to.equal('Germany');
    expect(countryName('US')).to.equal('United States');
    expect(countryName('XX')).to.equal('Unknown');
    expect(countryName('T1')).to.equal('Unknown');
    expect(countryName(undefined)).to.equal('Unknown');
  });

  it('prefers the trusted header, else looks the address up offline', () => {
    expect(resolveCountry('8.8.8.8', 'FR')).to.equal('France');
    expect(resolveCountry('8.8.8.8', undefined)).to.equal('United States');
    expect(resolveCountry('::ffff:8.8.8.8', undefined)).to.equal('United States');
    expect(resolveCountry('127.0.0.1', undefined)).to.equal('Unknown');
  });

  it('hashes visitors stably per salt, without the address in the output', () => {
    const a = hashVisitor('salt-one', '203.0.113.7', chrome);
    expect(a).to.equal(hashVisitor('salt-one', '203.0.113.7', chrome));
    expect(a).not.to.equal(hashVisitor('salt-two', '203.0.113.7', chrome));
    expect(a).not.to.equal(hashVisitor('salt-one', '203.0.113.8', chrome));
    expect(a).not.to.include('203.0.113.7');
  });

  it('remembers recent visitors (fewer than it sees here) without changing their hash', () => {
    const hash = visitorHasher('salt-one', 2);
    const pairs: Array<[string, string]> = [
      ['203.0.113.7', chrome],
      ['203.0.113.8', chrome],
      ['203.0.113.7', ''],
    ];
    for (let round = 0; round < 2; round += 1) {
      for (const [ip, ua] of pairs) {
        // Twice in a row: the second is the remembered last visitor.
        expect(hash(ip, ua)).to.equal(hashVisitor('salt-one', ip, ua));
        expect(hash(ip, ua)).to.equal(hashVisitor('salt-one', ip, ua));
      }
    }
    expect(hash('203.0.113.7', chrome)).not.to.equal(
      visitorHasher('salt-two')('203.0.113.7', chrome),
    );
  });

  it('round-trips a visit through its stream encoding and rejects malformed entries', () => {
    const v = visit({
      kind: 'link',
      targetId: 42,
      at: 1700000000000,
      referrer: 'https://t.co/x',
      country: 'Germany',
    });
    expect(decodeVisit(encodeVisit(v))).to.deep.equal(v);
    expect(decodeVisit(['k', 'bogus', 'i', '1', 't', '1'])).to.equal(null);
  });

  it('packs several clicks into one stream entry and unpacks each, ids and marks included', () => {
    const clicks = [
      visit({ targetId: 7, at: 1, clickId: 'abc.1' }),
      visit({ kind: 'link', targetId: 8, at: 2, variant: 'https://b.example/', clickId: 'abc.2' }),
      visit({ targetId: 9, at: 3, clickId: 'abc.3', resent: true, referrer: 'https://x.test/' }),
    ];
    const fields = encodeVisits(clicks);
    expect(fields).to.have.length(2);
    expect(decodeEntry(fields)).to.deep.equal({ visits: clicks, malformed: 0 });
    // A single-click entry (the spool's, and earlier versions') still reads as one click.
    expect(decodeEntry(encodeVisit(clicks[0] as CapturedVisit))).to.deep.equal({
      visits: [clicks[0]],
      malformed: 0,
    });
  });

  it('leaves out a malformed packed click and counts it; refuses an entry that is not one', () => {
    const [good] = encodeVisits([visit({ clickId: 'ok.1' })]).slice(1) as [string];
    const rows = JSON.parse(good) as unknown[];
    const packed = JSON.stringify([
      ...rows,
      ['qr', 'not a number', 1, 'v', 'c', 'u', 'r', '', 'x.1', 0],
      ['qr', 1, 1, 'v', 'c', 'u', 'r', '', '', 0],
      'not a row',
    ]);
    const decoded = decodeEntry(['p', packed]);
    expect(decoded?.visits).to.have.length(1);
    expect(decoded?.malformed).to.equal(3);
    expect(decodeEntry(['p', '{not json'])).to.equal(null);
    expect(decodeEntry(['p', '{"a":1}'])).to.equal(null);
    expect(decodeEntry(['k', 'bogus'])).to.equal(null);
  });
});
