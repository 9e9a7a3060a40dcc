import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isForbiddenAddress } from './address-policy';
import { LogoError, permanentLogoError, transientLogoError } from './logo-errors';

export interface ResolvedAddress {
  address: string;
  family: number;
}
/** Every address a host name resolves to (injectable, so tests never need real DNS). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true });

export interface FetchPolicy {
  allowPrivate: boolean;
  resolve?: Resolver;
  /** Overrides the address policy (tests only: lets a loopback server stand in for the internet). */
  isForbidden?: (address: string) => boolean;
}

export interface LogoFetchOptions extends FetchPolicy {
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export const LOGO_MAX_BYTES = 2 * 1024 * 1024;
export const LOGO_TIMEOUT_MS = 5000;

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Refuses anything but http(s) without credentials. */
export function parseLogoUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw permanentLogoError('logo must be an http(s) URL or a path inside LOGO_DIR');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw permanentLogoError('logo URL must use http or https');
  }
  if (url.username || url.password) throw permanentLogoError('logo URL must not carry credentials');
  return url;
}

/**
 * Resolves the host and refuses it if any of its addresses is private, loopback, link-local,
 * unique-local, multicast or an IPv4-mapped form of one, unless the policy allows private targets.
 * Returns the addresses to connect to, so the check and the connection use the same answer.
 */
export async function resolveAllowed(url: URL, policy: FetchPolicy): Promise<ResolvedAddress[]> {
  const host = bareHost(url);
  const forbidden = policy.isForbidden ?? isForbiddenAddress;
  let addresses: ResolvedAddress[];
  if (isIP(host)) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA') {
        throw permanentLogoError(`logo host ${host} does not resolve`);
      }
      throw transientLogoError(`logo host ${host} could not be resolved (${code ?? 'error'})`, err);
    }
  }
  if (addresses.length === 0) throw permanentLogoError(`logo host ${host} does not resolve`);
  if (!policy.allowPrivate && addresses.some((a) => forbidden(a.address))) {
    throw permanentLogoError('logo URL points to a private or local network address');
  }
  return addresses;
}

/** A lookup that answers only with the addresses already checked: no second, unchecked DNS query. */
export function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) {
      callback(null, addresses);
      return;
    }
    const first = addresses[0] as ResolvedAddress;
    callback(null, first.address, first.family);
  };
}

type Hop = { kind: 'body'; bytes: Buffer } | { kind: 'redirect'; location: string };

function requestOnce(
  url: URL,
  addresses: ResolvedAddress[],
  maxBytes: number,
  signal: AbortSignal,
): Promise<Hop> {
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.get(
      url,
      { lookup: pinnedLookup(addresses), signal, headers: { accept: 'image/png,image/jpeg' } },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          resolve({ kind: 'redirect', location: res.headers.location });
          return;
        }
        if (status !== 200) {
          res.resume();
          const retryable = status >= 500 || status === 429 || status === 408;
          const message = `logo URL answered HTTP ${status}`;
          reject(retryable ? transientLogoError(message) : permanentLogoError(message));
          return;
        }
        if (Number(res.headers['content-length'] ?? 0) > maxBytes) {
          res.destroy();
          reject(permanentLogoError(`logo is larger than ${maxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            reject(permanentLogoError(`logo is larger than ${maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ kind: 'body', bytes: Buffer.concat(chunks) }));
        res.on('error', reject);
        // An aborted response may close without 'end' or 'error'; a settled promise ignores this.
        res.on('close', () => {
          if (!res.complete) reject(transientLogoError('logo download was cut short'));
        });
      },
    );
    req.on('error', reject);
  });
}

/**
 * Downloads a logo without opening a server-side request forgery hole: http(s) only, every hop's
 * addresses checked and pinned, at most `maxRedirects` redirects, one overall timeout, a size cap.
 * The caller still checks that the bytes are an image.
 */
export async function fetchLogo(value: string, options: LogoFetchOptions): Promise<Buffer> {
  const timeoutMs = options.timeoutMs ?? LOGO_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? LOGO_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? 3;
  const signal = AbortSignal.timeout(timeoutMs);
  let url = parseLogoUrl(value);
  try {
    for (let hop = 0; ; hop += 1) {
      const addresses = await resolveAllowed(url, options);
      const result = await requestOnce(url, addresses, maxBytes, signal);
      if (result.kind === 'body') return result.bytes;
      if (hop >= maxRedirects) throw permanentLogoError('logo URL redirects too many times');
      url = parseLogoUrl(new URL(result.location, url).toString());
    }
  } catch (err) {
    if (err instanceof LogoError && err.permanent) throw err;
    if (signal.aborted) {
      throw transientLogoError(`logo download timed out after ${timeoutMs} ms`, err);
    }
    if (err instanceof LogoError) throw err;
    const code = (err as { code?: string }).code ?? (err as Error).message;
    throw transientLogoError(`logo download failed (${code})`, err);
  }
}
