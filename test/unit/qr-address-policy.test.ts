import { expect } from 'chai';
import { isForbiddenAddress } from '../../src/qr-codes/logo/address-policy';
import { resolveAllowed } from '../../src/qr-codes/logo/logo-fetch';
import { rejection } from '../support/rejection';

/** One sample per special-purpose range (IANA registries), named as ipaddr.js names them. */
const specialPurpose: Array<[range: string, samples: string[]]> = [
  ['IPv4 "this network"', ['0.0.0.0', '0.1.2.3']],
  ['IPv4 private', ['10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1']],
  ['IPv4 carrier-grade NAT', ['100.64.0.1']],
  ['IPv4 loopback', ['127.0.0.1', '127.255.0.9']],
  ['IPv4 link-local and cloud metadata', ['169.254.169.254']],
  ['IPv4 IETF protocol assignments', ['192.0.0.8', '192.0.0.9']],
  ['IPv4 documentation', ['192.0.2.1', '198.51.100.1', '203.0.113.1']],
  ['IPv4 6to4 relay anycast', ['192.88.99.1']],
  ['IPv4 benchmarking', ['198.18.0.1', '198.19.255.254']],
  ['IPv4 AS112 and AMT', ['192.31.196.1', '192.175.48.1', '192.52.193.1']],
  ['IPv4 multicast', ['224.0.0.1', '239.1.1.1']],
  ['IPv4 reserved and broadcast', ['240.0.0.1', '255.255.255.255']],
  ['IPv6 unspecified and loopback', ['::', '::1']],
  [
    'IPv6 IPv4-mapped of a forbidden IPv4',
    ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1'],
  ],
  ['IPv6 IPv4-compatible (::/96, issue 29 L8)', ['::8.8.8.8', '::1.1.1.1', '::a00:1', '::2']],
  ['IPv6 IPv4-translated (RFC 6145)', ['::ffff:0:127.0.0.1', '::ffff:0:808:808']],
  ['IPv6 NAT64 well-known and local prefixes', ['64:ff9b::7f00:1', '64:ff9b:1::1']],
  ['IPv6 discard', ['100::1']],
  ['IPv6 Teredo', ['2001::1', '2001:0:4136:e378::1']],
  ['IPv6 benchmarking', ['2001:2::1']],
  ['IPv6 ORCHID', ['2001:10::1', '2001:20::1']],
  ['IPv6 documentation', ['2001:db8::1', '3fff::1']],
  ['IPv6 6to4', ['2002:7f00:1::', '2002:808:808::1']],
  ['IPv6 unique local', ['fc00::1', 'fd12:3456::1']],
  ['IPv6 link-local and site-local', ['fe80::1', 'fe80::1%eth0', 'fec0::1']],
  ['IPv6 multicast', ['ff02::1']],
];

describe('logo address policy', () => {
  for (const [range, samples] of specialPurpose) {
    it(`refuses ${range}`, () => {
      for (const ip of samples) expect(isForbiddenAddress(ip), ip).to.equal(true);
    });
  }

  it('allows public unicast addresses, IPv4-mapped ones included', () => {
    for (const ip of [
      '93.184.216.34',
      '8.8.8.8',
      '2606:4700:4700::1111',
      '2a00:1450:4001::1',
      '::ffff:93.184.216.34',
    ]) {
      expect(isForbiddenAddress(ip), ip).to.equal(false);
    }
  });

  it('refuses what is not a plain IP address at all', () => {
    for (const text of ['localhost', '127.1', '0x7f.0.0.1', '', '1.2.3.4.5'])
      expect(isForbiddenAddress(text), text).to.equal(true);
  });

  it('refuses the logo URLs of the finding before any connection is made', async () => {
    for (const url of [
      'http://[::ffff:0:127.0.0.1]/l.png',
      'http://[64:ff9b:1::7f00:1]/l.png',
      'http://[2001::1]/l.png',
    ]) {
      const err = await rejection(resolveAllowed(new URL(url), { allowPrivate: false }));
      expect(err.message, url).to.equal('logo URL points to a private or local network address');
    }
  });
});
