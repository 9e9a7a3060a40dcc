import type { AppDeps } from '../deps';
import { cacheBusFor } from '../shared/cache/cache-bus';
import { sharedCache, type SharedCache, type ValueCodec } from '../shared/cache/shared-cache';
import type { QrFormat } from './qr-code.model';
import type { StoredImage } from './qr-images';

export type QrImageCache = SharedCache<StoredImage>;

/** Larger images (big logos at large sizes) are read from MongoDB each time. */
export const MAX_CACHED_IMAGE_BYTES = 64 * 1024;

/** An image on the cache bus: JSON with the bytes in base64. */
export const storedImageCodec: ValueCodec<StoredImage> = {
  encode: (image) =>
    JSON.stringify({
      contentType: image.contentType,
      etag: image.etag,
      bytes: image.bytes.toString('base64'),
    }),
  decode(encoded) {
    try {
      const parsed = JSON.parse(encoded) as Record<string, unknown>;
      const { contentType, etag, bytes } = parsed;
      if (typeof contentType !== 'string' || typeof etag !== 'string') return undefined;
      if (typeof bytes !== 'string') return undefined;
      return { contentType, etag, bytes: Buffer.from(bytes, 'base64') };
    } catch {
      return undefined;
    }
  },
};

/**
 * Served images by code, render version and format. An image never changes under its key (a
 * re-render has a new version), and the code lookup that names the version is kept coherent, so
 * nothing needs invalidating: the bound on memory is at most 500 images of at most 64 KiB. For
 * the same reason the worker can hand each image it renders to the APIs, whose image requests
 * waiting for that render then answer without reading MongoDB.
 */
export function qrImageCacheFor(
  deps: Pick<AppDeps, 'redis' | 'keys' | 'logger' | 'cacheClock'>,
): QrImageCache {
  return sharedCache<StoredImage>(cacheBusFor(deps), {
    name: 'qr-images',
    max: 500,
    ttlMs: 10 * 60_000,
    missMax: 1,
    missTtlMs: 1,
    keep: (image) => image.bytes.length <= MAX_CACHED_IMAGE_BYTES,
    codec: storedImageCodec,
  });
}

export function qrImageKey(qrId: number, renderVersion: number, format: QrFormat): string {
  return `${qrId}:${renderVersion}:${format}`;
}
