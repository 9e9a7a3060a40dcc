import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache } from '../shared/cache/shared-cache';
import type { QrCodeRecord } from './qr-code.model';

export type QrLookupCache = SharedCache<QrCodeRecord>;

/**
 * How long a code still rendering is kept. The worker invalidates it when the render ends, so
 * this only bounds the wait for an image should that message be lost: no longer than the
 * `Retry-After` the image route answers meanwhile.
 */
export const PENDING_TTL_MS = 2_000;
const FOUND_TTL_MS = 30_000;

/**
 * QR codes by alias, for the public image and scan routes; the API invalidates on create, update
 * and delete, the worker when a render turns a code ready or failed. Codes still rendering are
 * kept too, so that clients polling for a new image cost no MongoDB read each.
 */
export function qrLookupCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): QrLookupCache {
  return sharedCache<QrCodeRecord>(cacheBusFor(deps), {
    name: 'qr-codes',
    max: 20_000,
    ttlMs: FOUND_TTL_MS,
    missMax: 5_000,
    missTtlMs: 5_000,
    ttlOf: (qr) => (qr.status === 'pending' ? PENDING_TTL_MS : FOUND_TTL_MS),
  });
}
