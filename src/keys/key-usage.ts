import { LRUCache } from 'lru-cache';
import type { Logger } from '../shared/infra/logger';
import { User } from '../users/user.model';
import { DEFAULT_KEY_ID, type Caller } from './callers';
import { ApiKey } from './key.model';

/** `lastused` moves at most this often per key. */
export const LAST_USED_RESOLUTION_MS = 60_000;
/** Uses are written in one batch this long after the first, never while a request waits. */
const FLUSH_DELAY_MS = 1_000;

/**
 * Records when each key was last used: at most one write a minute per key and process, batched
 * and written after the request is answered; the filter keeps it to one a minute across processes.
 */
export class KeyUsage {
  private readonly noted = new LRUCache<string, number>({ max: 20_000 });
  private readonly pending = new Map<string, { kind: 'user' | 'key'; id: number; at: Date }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly logger: Logger) {}

  touch(caller: Caller, now: Date): void {
    const isDefault = caller.key.id === DEFAULT_KEY_ID;
    const target = isDefault ? `u:${caller.user.id}` : `k:${caller.key.id}`;
    const last = this.noted.get(target);
    if (last !== undefined && now.getTime() - last < LAST_USED_RESOLUTION_MS) return;
    this.noted.set(target, now.getTime());
    const id = isDefault ? caller.user.id : caller.key.id;
    this.pending.set(target, { kind: isDefault ? 'user' : 'key', id, at: now });
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_DELAY_MS).unref();
  }

  /** Writes what is pending now (also called by tests and at shutdown). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending.clear();
    try {
      await Promise.all(
        batch.map(({ kind, id, at }) => {
          const before = new Date(at.getTime() - LAST_USED_RESOLUTION_MS + 1);
          return kind === 'key'
            ? ApiKey.updateOne(
                { id, $or: [{ lastused: null }, { lastused: { $lt: before } }] },
                { $set: { lastused: at } },
              )
            : User.updateOne(
                { id, $or: [{ apiKeyLastUsed: null }, { apiKeyLastUsed: { $lt: before } }] },
                { $set: { apiKeyLastUsed: at } },
              );
        }),
      );
    } catch (err) {
      this.logger.warn({ err }, 'could not record when keys were last used');
    }
  }
}

const usages = new WeakMap<object, KeyUsage>();

/** The process's recorder (keyed by the deps' Redis connection, like the cache bus). */
export function keyUsageFor(deps: { redis: object; logger: Logger }): KeyUsage {
  let usage = usages.get(deps.redis);
  if (!usage) usages.set(deps.redis, (usage = new KeyUsage(deps.logger)));
  return usage;
}
