import { expect } from 'chai';
import { cachedDomainByHost, forgetHost } from '../../src/domains/domain-cache';
import type { BrandedDomainContext } from '../../src/shared/http/public-context';
import { uniqueName } from '../support/users';

function countingLoader(answer: BrandedDomainContext | null) {
  const calls: string[] = [];
  const load = async (host: string) => {
    calls.push(host);
    return answer;
  };
  return { calls, load };
}

const context: BrandedDomainContext = {
  id: 1,
  userId: 2,
  domain: 'https://go.example.test',
  redirectroot: null,
  redirect404: null,
};

describe('cachedDomainByHost', () => {
  it('loads a host once within the TTL, misses included', async () => {
    const host = `${uniqueName('h')}.example.test`;
    const { calls, load } = countingLoader(null);
    expect(await cachedDomainByHost(host, load, 1_000)).to.equal(null);
    expect(await cachedDomainByHost(host, load, 5_999)).to.equal(null);
    expect(calls).to.deep.equal([host]);
  });

  it('loads again once the entry expired', async () => {
    const host = `${uniqueName('h')}.example.test`;
    const { calls, load } = countingLoader(context);
    await cachedDomainByHost(host, load, 1_000);
    expect(await cachedDomainByHost(host, load, 6_000)).to.deep.equal(context);
    expect(calls).to.deep.equal([host, host]);
  });

  it('loads again after forgetHost', async () => {
    const host = `${uniqueName('h')}.example.test`;
    const { calls, load } = countingLoader(context);
    await cachedDomainByHost(host, load, 1_000);
    forgetHost(host);
    await cachedDomainByHost(host, load, 1_001);
    expect(calls).to.deep.equal([host, host]);
  });

  it('does not keep a failed lookup', async () => {
    const host = `${uniqueName('h')}.example.test`;
    let fail = true;
    const load = async () => {
      if (fail) throw new Error('database down');
      return context;
    };
    await cachedDomainByHost(host, load, 1_000).then(
      () => expect.fail('should have failed'),
      (err: Error) => expect(err.message).to.equal('database down'),
    );
    fail = false;
    expect(await cachedDomainByHost(host, load, 1_001)).to.deep.equal(context);
  });
});
