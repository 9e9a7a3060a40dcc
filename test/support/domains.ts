import { request as httpRequest } from 'node:http';
import type { DomainResolver } from '../../src/domains/domain-check';
import { uniqueName } from './users';

/** A fresh branded-domain URL nobody has claimed yet. */
export function uniqueDomain(scheme: 'http' | 'https' = 'https'): string {
  return `${scheme}://${uniqueName('go')}.example.test`;
}

export interface HostResponse {
  status: number;
  location: string | undefined;
  contentType: string | undefined;
  text: string;
}

/** A request with a chosen Host header (fetch cannot set one), never following redirects. */
export function requestWithHost(
  baseUrl: string,
  path: string,
  host: string,
  method = 'GET',
): Promise<HostResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path, method, headers: { host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          location: res.headers.location,
          contentType: res.headers['content-type'],
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

export interface FakeRecords {
  a?: string[];
  aaaa?: string[];
  cname?: string[];
  txt?: string[];
  /** Every lookup of the name fails with this code (ETIMEOUT, ESERVFAIL: the DNS failed). */
  fail?: string;
}

function dnsError(code: string, hostname: string): Error {
  return Object.assign(new Error(`query ${code} ${hostname}`), { code, hostname });
}

/**
 * A resolver answering from a fixed zone, as the system one would: an unknown name is ENOTFOUND,
 * a known name without that record type is ENODATA. `queries` records every lookup made.
 */
export function fakeResolver(zone: Record<string, FakeRecords>) {
  const queries: string[] = [];
  const answer = (type: 'a' | 'aaaa' | 'cname' | 'txt') => async (hostname: string) => {
    queries.push(`${type} ${hostname}`);
    const records = zone[hostname];
    if (!records) throw dnsError('ENOTFOUND', hostname);
    if (records.fail) throw dnsError(records.fail, hostname);
    const values = records[type];
    if (!values?.length) throw dnsError('ENODATA', hostname);
    return values;
  };
  const resolver: DomainResolver = {
    resolve4: answer('a'),
    resolve6: answer('aaaa'),
    resolveCname: answer('cname'),
    // A long TXT value arrives in chunks of at most 255 characters.
    resolveTxt: async (hostname: string) =>
      (await answer('txt')(hostname)).map((v) => v.match(/.{1,255}/g) ?? ['']),
  };
  return { resolver, queries };
}
