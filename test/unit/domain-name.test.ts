import { expect } from 'chai';
import { isBrandableHost, normaliseDomain } from '../../src/domains/domain-name';
import { AppError } from '../../src/shared/errors/app-error';

function refusal(input: string): { status: number; message: string } {
  try {
    normaliseDomain(input);
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error(`${input} was accepted`);
}

describe('normaliseDomain', () => {
  const accepted: Array<[string, string]> = [
    ['https://go.example.com', 'https://go.example.com'],
    ['http://go.example.com', 'http://go.example.com'],
    ['HTTPS://Go.Example.COM/', 'https://go.example.com'],
    ['  https://go.example.com  ', 'https://go.example.com'],
    ['https://go.example.com:443', 'https://go.example.com'],
    ['http://go.example.com:80/', 'http://go.example.com'],
    ['https://bücher.example', 'https://xn--bcher-kva.example'],
    ['https://a-b.c-d.example', 'https://a-b.c-d.example'],
  ];
  for (const [input, origin] of accepted) {
    it(`accepts ${input} as ${origin}`, () => {
      expect(normaliseDomain(input)).to.equal(origin);
    });
  }

  const refused: Array<[string, string]> = [
    ['go.example.com', 'domain must start with http:// or https://'],
    ['ftp://go.example.com', 'domain must start with http:// or https://'],
    ['https:go.example.com', 'domain must start with http:// or https://'],
    [
      'https://go.example.com/path',
      'domain must be a host only, without a path, query or fragment',
    ],
    ['https://go.example.com//', 'domain must be a host only, without a path, query or fragment'],
    ['https://go.example.com/.', 'domain must be a host only, without a path, query or fragment'],
    ['https://go.example.com?', 'domain must be a host only, without a path, query or fragment'],
    [
      'https://go.example.com/?a=1',
      'domain must be a host only, without a path, query or fragment',
    ],
    ['https://go.example.com#top', 'domain must be a host only, without a path, query or fragment'],
    ['https:///go.example.com', 'domain must be a host only, without a path, query or fragment'],
    ['https://go.example.com\\x', 'domain must be a host only, without a path, query or fragment'],
    ['https://user:pw@go.example.com', 'domain must not contain credentials'],
    ['https://user@go.example.com', 'domain must not contain credentials'],
    [
      'https://go.example.com:8443',
      'domain must not carry a port other than the default (80 or 443)',
    ],
    [
      'http://go.example.com:443',
      'domain must not carry a port other than the default (80 or 443)',
    ],
    ['https://203.0.113.7', 'domain must be a domain name, not an IP address'],
    ['http://0x7f.1', 'domain must be a domain name, not an IP address'],
    ['https://[2001:db8::1]', 'domain must be a domain name, not an IP address'],
    ['https://localhost', 'domain must be a valid host name such as https://go.example.com'],
    ['https://go.example.com.', 'domain must be a valid host name such as https://go.example.com'],
    ['https://go_1.example.com', 'domain must be a valid host name such as https://go.example.com'],
    ['https://-go.example.com', 'domain must be a valid host name such as https://go.example.com'],
    ['https://go example.com', 'domain must be a valid host name such as https://go.example.com'],
    ['https://', 'domain must be a valid host name such as https://go.example.com'],
    [
      `https://${'a'.repeat(64)}.example.com`,
      'domain must be a valid host name such as https://go.example.com',
    ],
  ];
  for (const [input, message] of refused) {
    it(`refuses ${input} with 422: ${message}`, () => {
      expect(refusal(input)).to.deep.equal({ status: 422, message });
    });
  }
});

describe('isBrandableHost', () => {
  it('is true for a multi-label host name', () => {
    expect(isBrandableHost('go.example.com')).to.equal(true);
  });

  for (const host of ['127.0.0.1', '::1', 'localhost', 'Go.Example.com', 'go.example.com.']) {
    it(`is false for ${host}, which no branded domain can be`, () => {
      expect(isBrandableHost(host)).to.equal(false);
    });
  }
});
