import { expect } from 'chai';
import { embeddedIpv4, isForbiddenAddress } from '../../src/qr-codes/logo/address-policy';

describe('logo address policy', () => {
  it('refuses loopback, private, link-local, CGNAT, multicast and reserved IPv4', () => {
    for (const ip of [
      '127.0.0.1',
      '127.255.0.9',
      '10.1.2.3',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
    ]) {
      expect(isForbiddenAddress(ip), ip).to.equal(true);
    }
  });

  it('refuses loopback, unique-local, link-local and multicast IPv6', () => {
    for (const ip of ['::1', '::', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'ff02::1']) {
      expect(isForbiddenAddress(ip), ip).to.equal(true);
    }
  });

  it('sees through IPv4-mapped, compatible, NAT64 and 6to4 forms', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).to.equal('127.0.0.1');
    expect(embeddedIpv4('::ffff:7f00:1')).to.equal('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0:ffff:a00:1')).to.equal('10.0.0.1');
    expect(embeddedIpv4('64:ff9b::c0a8:101')).to.equal('192.168.1.1');
    expect(embeddedIpv4('2002:a9fe:a9fe::1')).to.equal('169.254.169.254');
    for (const ip of [
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:10.0.0.1',
      '::127.0.0.1',
      '64:ff9b::7f00:1',
      '2002:7f00:1::',
    ]) {
      expect(isForbiddenAddress(ip), ip).to.equal(true);
    }
    expect(isForbiddenAddress('::ffff:93.184.216.34')).to.equal(false);
  });

  it('allows public unicast addresses', () => {
    for (const ip of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::1']) {
      expect(isForbiddenAddress(ip), ip).to.equal(false);
    }
  });

  it('refuses what is not an IP address at all', () => {
    expect(isForbiddenAddress('localhost')).to.equal(true);
  });
});
