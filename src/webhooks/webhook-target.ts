import { isIP } from 'node:net';
import { isForbiddenAddress } from '../qr-codes/logo/address-policy';
import { systemResolver, type ResolvedAddress, type Resolver } from '../qr-codes/logo/logo-fetch';

/** Where a webhook may deliver: the logo fetcher's address policy, applied to webhook URLs. */
export interface TargetPolicy {
  allowPrivate: boolean;
  resolve?: Resolver;
}

export class WebhookTargetError extends Error {
  override name = 'WebhookTargetError';
}

/** Refuses anything but http(s) without credentials. */
export function parseWebhookUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebhookTargetError('url must be an http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new WebhookTargetError('url must use http or https');
  if (url.username || url.password) throw new WebhookTargetError('url must not carry credentials');
  return url;
}

/**
 * Resolves the URL's host and refuses it when any address is private, loopback, link-local or
 * otherwise not public (unless allowed). Returns the checked addresses, so the delivery connects
 * to exactly those and a DNS answer that changes in between cannot redirect it.
 */
export async function resolveWebhookTarget(
  url: URL,
  policy: TargetPolicy,
): Promise<ResolvedAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ResolvedAddress[];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = (err as { code?: string }).code ?? 'error';
      throw new WebhookTargetError(`url host ${host} could not be resolved (${code})`);
    }
  }
  if (addresses.length === 0) throw new WebhookTargetError(`url host ${host} does not resolve`);
  if (!policy.allowPrivate && addresses.some((a) => isForbiddenAddress(a.address)))
    throw new WebhookTargetError('url points to a private or local network address');
  return addresses;
}
