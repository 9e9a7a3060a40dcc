import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { CheckResult } from '../../src/links/link-health';
import { isForbiddenAddress } from '../../src/qr-codes/logo/address-policy';
import {
  pinnedLookup,
  systemResolver,
  type ResolvedAddress,
  type Resolver,
} from '../../src/qr-codes/logo/logo-fetch';

export const CHECK_TIMEOUT_MS = 10_000;
const MAX_REDIRECTS = 5;

export interface ProbeOptions {
  /** LINK_CHECK_ALLOW_PRIVATE: private, loopback and link-local destinations may be requested. */
  allowPrivate: boolean;
  timeoutMs?: number;
  resolve?: Resolver;
  /** The address policy; tests stand a loopback address in for a public one. */
  isForbidden?: (address: string) => boolean;
  /** Sent as User-Agent, so a site's owner can tell what knocks. */
  userAgent: string;
}

/** The address policy refused a hop: nothing was requested. */
class Refused extends Error {}

/** Resolves the hop's host; refuses it when any address is not public (unless allowed). */
async function addressesOf(url: URL, options: ProbeOptions): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await (options.resolve ?? systemResolver)(host);
  if (addresses.length === 0) throw new Error(`host ${host} does not resolve`);
  const forbidden = options.isForbidden ?? isForbiddenAddress;
  if (!options.allowPrivate && addresses.some((a) => forbidden(a.address)))
    throw new Refused('destination is a private or local network address: not checked');
  return addresses;
}

interface Answer {
  status: number;
  location: string | undefined;
}

/** One request; the body is never read (a GET is cut off once its status line is in). */
function requestOnce(
  method: 'HEAD' | 'GET',
  url: URL,
  addresses: ResolvedAddress[],
  options: ProbeOptions,
): Promise<Answer> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(
      url,
      {
        method,
        lookup: pinnedLookup(addresses),
        signal: AbortSignal.timeout(options.timeoutMs ?? CHECK_TIMEOUT_MS),
        headers: { 'user-agent': options.userAgent, accept: '*/*' },
      },
      (res) => {
        resolve({ status: res.statusCode ?? 0, location: res.headers.location });
        res.destroy();
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** HEAD first; GET when HEAD is refused (a 4xx, or 501), as many servers never implement HEAD. */
async function answerOf(url: URL, options: ProbeOptions): Promise<Answer> {
  const addresses = await addressesOf(url, options);
  const head = await requestOnce('HEAD', url, addresses, options);
  const refused = (head.status >= 400 && head.status < 500) || head.status === 501;
  return refused ? requestOnce('GET', url, addresses, options) : head;
}

/** What the issue counts as a dead destination: no answer, a 5xx, 404 or 410. */
function verdict(status: number): CheckResult {
  if (status >= 500 || status === 404 || status === 410)
    return { kind: 'failed', error: `HTTP ${status}` };
  return { kind: 'ok' };
}

function messageOf(err: unknown): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return 'no answer (timed out)';
  return e.code ? `no answer (${e.code})` : (e.message ?? 'no answer');
}

/**
 * Checks a destination, following up to MAX_REDIRECTS redirects (each hop's address checked
 * again, so a public page cannot redirect the check into the private network).
 */
export async function probeDestination(
  destination: string,
  options: ProbeOptions,
): Promise<CheckResult> {
  let url = new URL(destination);
  try {
    for (let hop = 0; ; hop += 1) {
      const answer = await answerOf(url, options);
      const redirect = answer.status >= 300 && answer.status < 400 && answer.location;
      if (!redirect || hop === MAX_REDIRECTS) return verdict(answer.status);
      const next = new URL(redirect, url);
      // A redirect into an app or mail link: the destination answered, nothing more to check.
      if (next.protocol !== 'http:' && next.protocol !== 'https:') return verdict(answer.status);
      url = next;
    }
  } catch (err) {
    if (err instanceof Refused) return { kind: 'refused', error: err.message };
    return { kind: 'failed', error: messageOf(err) };
  }
}
