import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';

/** A link's click limit as its cached target carries it. */
export interface ClickLimitOf {
  max: number;
  /** The link's stored clicks when it was loaded: the count a lost counter starts again from. */
  stored: number;
}

/**
 * Counts a click against the limit and says whether it may go through, atomically in Redis so
 * that every API process shares one count. A missing counter (first use, or lost with Redis's
 * data) starts from the stored clicks, which lag the clicks still on their way to MongoDB; a
 * counter behind the stored clicks (left from an earlier limit, then clicks made while the link
 * had none) is brought up to them.
 */
const TAKE = `
local count = math.max(tonumber(redis.call('GET', KEYS[1]) or 0), tonumber(ARGV[1]))
if count >= tonumber(ARGV[2]) then return 0 end
redis.call('SET', KEYS[1], count + 1, 'EX', ARGV[3])
return 1`;

/** Kept a month past the last click; after that it starts again from the stored clicks. */
const COUNTER_TTL_S = 30 * 24 * 3600;

export class ClickLimits {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
  ) {}

  counterKey(linkId: number): string {
    return this.keys.key('links', linkId, 'limit-clicks');
  }

  /**
   * True when the click is within the limit (and counted), false when the link has run out.
   * A link whose stored clicks already reach its limit is used up whatever the counter says, so
   * it is answered without Redis, and stays expired while Redis is unreachable; a link with room
   * left cannot be counted then, and the call fails (the visitor gets the 503 page: see the
   * README's Click limits for why).
   */
  async take(linkId: number, limit: ClickLimitOf): Promise<boolean> {
    if (limit.stored >= limit.max) return false;
    const taken = await this.redis.eval(
      TAKE,
      1,
      this.counterKey(linkId),
      limit.stored,
      limit.max,
      COUNTER_TTL_S,
    );
    return taken === 1;
  }
}
