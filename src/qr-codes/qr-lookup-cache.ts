import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { QrCodeRecord } from './qr-code.model';

export type QrLookupCache = SharedCache<QrCodeRecord>;

/**
 * QR codes by alias, for the public image and scan routes; the API invalidates on create, update
 * and delete. Codes still rendering are not kept: the worker turns them ready or failed, and an
 * image must be served as soon as it exists, with no message from the worker to wait for.
 */
export function qrLookupCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): QrLookupCache {
  return sharedCache<QrCodeRecord>(cacheBusFor(deps), {
    name: 'qr-codes',
    max: 20_000,
    ttlMs: 30_000,
    missMax: 5_000,
    missTtlMs: 5_000,
    keep: (qr) => qr.status !== 'pending',
  });
}
