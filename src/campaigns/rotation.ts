import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';

/** The campaign's turn counter, shared by every API process. */
export function rotatorCounterKey(keys: RedisKeys, campaignId: number): string {
  return keys.key('campaigns', 'rotator', campaignId);
}

/**
 * Round robin over the campaign's live links (in id order) with one Redis counter, so every API
 * process takes its turn from the same sequence.
 */
export async function pickInRotation<T>(
  redis: RedisClient,
  counterKey: string,
  live: readonly T[],
): Promise<T | null> {
  if (!live.length) return null;
  const turn = await redis.incr(counterKey);
  return live[(turn - 1) % live.length] ?? null;
}
