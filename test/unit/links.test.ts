import { expect } from 'chai';
import { isReservedAlias, randomAlias, RESERVED_ALIASES } from '../../src/links/aliases';
import type { LinkTarget } from '../../src/links/link-cache';
import { decideRedirect } from '../../src/visitor/redirect';

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
    for (const word of ['api', 'app', 'qr', 's', 'r', 'u', 'b', 'healthz', 'readyz'])
      expect(RESERVED_ALIASES.has(word)).to.equal(true);
    expect(isReservedAlias('Api')).to.equal(true);
    expect(isReservedAlias('READYZ')).to.equal(true);
    expect(isReservedAlias('apis')).to.equal(false);
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
