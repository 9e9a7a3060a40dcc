import type { RedisClient } from '../shared/infra/redis-connections';
import type { LinkRecord } from '../links/link.model';
import type { RedisKeys } from '../shared/infra/redis-keys';

/** The campaign's turn counter, shared by every API process. */
export function rotatorCounterKey(keys: RedisKeys, campaignId: number): string {
  return keys.key('campaigns', 'rotator', campaignId);
}

/**
 * Round robin over the campaign's links (ordered by id) with one Redis counter, so every API
 * process takes its turn from the same sequence. Expired links are skipped.
 */
export async function pickInRotation(
  redis: RedisClient,
  counterKey: string,
  links: LinkRecord[],
  now: Date,
): Promise<LinkRecord | null> {
  const live = links.filter((l) => !l.expiry || l.expiry.getTime() > now.getTime());
  if (!live.length) return null;
  const turn = await redis.incr(counterKey);
  return live[(turn - 1) % live.length] ?? null;
}
