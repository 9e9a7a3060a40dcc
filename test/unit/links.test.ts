import { expect } from 'chai';
import { isReservedAlias, randomAlias, RESERVED_ALIASES } from '../../src/links/aliases';
import type { LinkTarget } from '../../src/links/link-cache';
import { parseDateTimeInput } from '../../src/links/links.schemas';
import { decideRedirect } from '../../src/links/redirect';

describe('unit: link aliases', () => {
  it('draws 7 characters from the 62-letter alphabet', () => {
    for (let i = 0; i < 200; i += 1) expect(randomAlias()).to.match(/^[A-Za-z0-9]{7}$/);
  });

  it('uses the whole alphabet and repeats no alias in 10 000 draws', () => {
    const aliases = Array.from({ length: 10_000 }, () => randomAlias());
    expect(new Set(aliases).size).to.equal(aliases.length);
    expect(new Set(aliases.join('')).size).to.equal(62);
  });

  it('treats the service own path segments as reserved, whatever their case', () => {
    for (const word of ['api', 'qr', 's', 'r', 'u', 'b', 'healthz', 'readyz'])
      expect(RESERVED_ALIASES.has(word)).to.equal(true);
    expect(isReservedAlias('Api')).to.equal(true);
    expect(isReservedAlias('READYZ')).to.equal(true);
    expect(isReservedAlias('apis')).to.equal(false);
  });
});

describe('unit: date-time input', () => {
  it('reads the spec form as UTC', () => {
    expect(parseDateTimeInput('2030-01-02 03:04:05')?.toISOString()).to.equal(
      '2030-01-02T03:04:05.000Z',
    );
  });

  it('reads ISO 8601 with an offset, with Z, and without a zone as UTC', () => {
    expect(parseDateTimeInput('2030-01-02T03:04:05+02:00')?.toISOString()).to.equal(
      '2030-01-02T01:04:05.000Z',
    );
    expect(parseDateTimeInput('2030-01-02T03:04Z')?.toISOString()).to.equal(
      '2030-01-02T03:04:00.000Z',
    );
    expect(parseDateTimeInput('2030-01-02T03:04:05.250')?.toISOString()).to.equal(
      '2030-01-02T03:04:05.250Z',
    );
  });

  it('refuses days, hours and shapes that do not exist', () => {
    for (const bad of [
      '2030-02-29 00:00:00',
      '2030-04-31T00:00:00Z',
      '2030-01-01 24:00:00',
      '2030-01-01 10:60:00',
      '2030-01-01',
      'tomorrow',
      '',
    ])
      expect(parseDateTimeInput(bad), bad).to.equal(null);
    expect(parseDateTimeInput('2028-02-29 00:00:00')?.toISOString()).to.equal(
      '2028-02-29T00:00:00.000Z',
    );
  });
});

describe('unit: redirect decision', () => {
  const base: LinkTarget = {
    id: 1,
    url: 'https://example.com/',
    expiresAt: null,
    passwordHash: null,
    direct: true,
  };
  const now = Date.UTC(2030, 0, 1);

  it('redirects a plain link', () => {
    expect(decideRedirect(base, now)).to.deep.equal({ kind: 'redirect', url: base.url });
  });

  it('answers gone from the expiry instant on, even for a cached link', () => {
    const target = { ...base, expiresAt: now };
    expect(decideRedirect(target, now - 1).kind).to.equal('redirect');
    expect(decideRedirect(target, now).kind).to.equal('gone');
    expect(decideRedirect(target, now + 1).kind).to.equal('gone');
  });

  it('asks for the password, unless the link has expired', () => {
    const target = { ...base, passwordHash: 'scrypt$...' };
    expect(decideRedirect(target, now).kind).to.equal('password');
    expect(decideRedirect({ ...target, expiresAt: now - 1 }, now).kind).to.equal('gone');
  });
});
