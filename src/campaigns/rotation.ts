import type { Redis } from 'ioredis';
import type { LinkRecord } from '../links/link.model';

/**
 * Round robin over the campaign's links (ordered by id) with one Redis counter, so every API
 * process takes its turn from the same sequence. Expired links are skipped.
 */
export async function pickInRotation(
  redis: Redis,
  counterKey: string,
  links: LinkRecord[],
  now: Date,
): Promise<LinkRecord | null> {
  const live = links.filter((l) => !l.expiry || l.expiry.getTime() > now.getTime());
  if (!live.length) return null;
  const turn = await redis.incr(counterKey);
  return live[(turn - 1) % live.length] ?? null;
}
