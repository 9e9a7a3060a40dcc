import type { RedisClient } from '../shared/infra/redis-connections';
import type { RedisKeys } from '../shared/infra/redis-keys';

export interface PasswordGuardLimits {
  /** Wrong passwords one client may send for one link per window. */
  perClient: number;
  /** Wrong passwords for one link from everyone per window (slows a distributed guess). */
  perLink: number;
  windowSeconds: number;
}

export const DEFAULT_PASSWORD_LIMITS: PasswordGuardLimits = {
  perClient: 10,
  perLink: 100,
  windowSeconds: 15 * 60,
};

/**
 * Check and count in one step, so parallel guesses cannot all pass the check before any is
 * counted: KEYS = client counter, link counter; ARGV = per-client cap, per-link cap, window.
 * Past the per-link cap each client keeps one try per window instead of none: a guessing crowd
 * must not lock out the visitor who knows the password (issue 29, L7).
 * Returns 0 when the attempt may go ahead (and is now counted), else the seconds to wait.
 */
const TAKE_ATTEMPT = `
local client = tonumber(redis.call('GET', KEYS[1]) or '0')
local all = tonumber(redis.call('GET', KEYS[2]) or '0')
local blocking = nil
if client >= tonumber(ARGV[1]) then blocking = KEYS[1]
elseif all >= tonumber(ARGV[2]) and client >= 1 then blocking = KEYS[2] end
if blocking then
  local ttl = redis.call('TTL', blocking)
  if ttl > 0 then return ttl end
  return tonumber(ARGV[3])
end
redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('INCR', KEYS[2])
redis.call('EXPIRE', KEYS[2], ARGV[3])
return 0
`;

/**
 * Counts link password attempts in Redis, shared by every API process. An attempt is counted
 * before the password is checked (atomically with the check of the limit); a right password
 * gives its attempt back. Each failure restarts the window, so a client that keeps guessing
 * stays locked out. Client addresses are hashed.
 */
export class PasswordGuard {
  constructor(
    private readonly redis: RedisClient,
    private readonly keys: RedisKeys,
    /** A keyed hash of the client address (the visits module's), so no address reaches Redis. */
    private readonly hashClient: (ip: string) => string,
    private readonly limits: PasswordGuardLimits = DEFAULT_PASSWORD_LIMITS,
  ) {}

  private keysFor(linkId: number, ip: string): [string, string] {
    const client = this.hashClient(ip);
    // One slot per link: the script reads and counts both keys.
    return [
      this.keys.slotted(`links:pw:${linkId}`, 'ip', client),
      this.keys.slotted(`links:pw:${linkId}`, 'all'),
    ];
  }

  /** Takes one attempt: 0 when the client may check a password now, else seconds to wait. */
  async takeAttempt(linkId: number, ip: string): Promise<number> {
    const { perClient, perLink, windowSeconds } = this.limits;
    const wait = await this.redis.eval(
      TAKE_ATTEMPT,
      2,
      ...this.keysFor(linkId, ip),
      perClient,
      perLink,
      windowSeconds,
    );
    return Number(wait);
  }

  /** A right password: the client's count restarts and the link's attempt is given back. */
  async succeeded(linkId: number, ip: string): Promise<void> {
    const [clientKey, linkKey] = this.keysFor(linkId, ip);
    await this.redis.multi().del(clientKey).decr(linkKey).exec();
  }
}
