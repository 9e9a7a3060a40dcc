import { Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { Config } from '../config';
import { validation } from '../shared/errors/app-error';

/** The DNS lookups the "points to this service" check needs; injectable through `AppDeps`. */
export interface DomainResolver {
  resolve4(hostname: string): Promise<string[]>;
  resolve6(hostname: string): Promise<string[]>;
  resolveCname(hostname: string): Promise<string[]>;
  /** Each TXT record as the strings it is split into. */
  resolveTxt(hostname: string): Promise<string[][]>;
}

/** The system's DNS servers, with short timeouts so a dead server cannot hold a request for long. */
export function systemResolver(): DomainResolver {
  const resolver = new Resolver({ timeout: 2000, tries: 2 });
  return {
    resolve4: (hostname) => resolver.resolve4(hostname),
    resolve6: (hostname) => resolver.resolve6(hostname),
    resolveCname: (hostname) => resolver.resolveCname(hostname),
    resolveTxt: (hostname) => resolver.resolveTxt(hostname),
  };
}

/** Verifies that a new branded domain's host may be claimed; throws a 422 when it may not. */
export type DomainVerifier = (host: string) => Promise<void>;

type Lookup = { ok: true; values: string[] } | { ok: false; code: string };

async function lookup(run: () => Promise<string[]>): Promise<Lookup> {
  try {
    return { ok: true, values: await run() };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return { ok: false, code: typeof code === 'string' ? code : 'lookup failed' };
  }
}

function canonicalName(name: string): string {
  return name.trim().toLowerCase().replace(/\.$/, '');
}

/** One spelling per address, so `2001:db8:0::1` and `2001:db8::1` compare equal. */
function canonicalAddress(address: string): string {
  const bare = address.replace(/^\[|\]$/g, '');
  return isIP(bare) === 6 ? new URL(`http://[${bare}]/`).hostname.slice(1, -1) : bare;
}

/** What the service answers to: names a CNAME may point at, and addresses an A/AAAA may hold. */
async function serviceTargets(config: Config, resolver: DomainResolver) {
  const names = new Set<string>();
  const addresses = new Set<string>();
  for (const target of [new URL(config.publicUrl).hostname, ...config.domainTargets]) {
    const value = canonicalName(target);
    if (isIP(value.replace(/^\[|\]$/g, ''))) addresses.add(canonicalAddress(value));
    else if (value) names.add(value);
  }
  const resolved = await Promise.all(
    [...names].flatMap((name) => [
      lookup(() => resolver.resolve4(name)),
      lookup(() => resolver.resolve6(name)),
    ]),
  );
  for (const result of resolved) {
    if (result.ok) result.values.forEach((a) => addresses.add(canonicalAddress(a)));
  }
  return { names, addresses };
}

function guidance(host: string, reason: string, names: Set<string>, addresses: Set<string>) {
  const options: string[] = [];
  const [name] = names;
  if (name) options.push(`a CNAME record pointing to ${name}`);
  if (addresses.size) options.push(`an A/AAAA record pointing to ${[...addresses].join(', ')}`);
  return `${host} does not point to this service (${reason}): create ${options.join(' or ')}`;
}

/**
 * With DOMAIN_CHECK=dns, accepts a host whose CNAME names the service (PUBLIC_URL's host or a
 * DOMAIN_TARGETS name) or whose A/AAAA records hold one of the service's addresses.
 */
export function domainVerifier(config: Config, resolver: DomainResolver): DomainVerifier {
  const serviceHost = canonicalName(new URL(config.publicUrl).hostname);
  return async (host) => {
    if (canonicalName(host) === serviceHost) {
      throw validation('domain is the address of this service itself', 'domain');
    }
    if (config.domainCheck === 'off') return;
    const [targets, v4, v6, cname] = await Promise.all([
      serviceTargets(config, resolver),
      lookup(() => resolver.resolve4(host)),
      lookup(() => resolver.resolve6(host)),
      lookup(() => resolver.resolveCname(host)),
    ]);
    if (cname.ok && cname.values.some((c) => targets.names.has(canonicalName(c)))) return;
    const own = [v4, v6].flatMap((r) => (r.ok ? r.values.map(canonicalAddress) : []));
    if (own.some((a) => targets.addresses.has(a))) return;
    const aliases = cname.ok ? cname.values.map(canonicalName) : [];
    // Never the records found: they may be internal names and addresses (issue 29, L1).
    const failures = [...new Set([v4, v6, cname].flatMap((r) => (r.ok ? [] : [r.code])))];
    const reason =
      own.length || aliases.length
        ? 'its records name other hosts or addresses'
        : `no A, AAAA or CNAME record found${failures.length ? `: ${failures.join(', ')}` : ''}`;
    throw validation(guidance(host, reason, targets.names, targets.addresses), 'domain');
  };
}
