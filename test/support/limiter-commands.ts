import type { TestApp } from './app-harness';

/** Counts the Redis commands that touch the public limiter's counters while `work` runs. */
export async function limiterCommands(app: TestApp, work: () => Promise<void>): Promise<number> {
  const redis = app.deps.redis;
  const original = redis.call.bind(redis);
  const prefix = app.deps.keys.publicRateLimit();
  let count = 0;
  redis.call = ((...args: Parameters<typeof original>) => {
    if (args.some((a) => typeof a === 'string' && a.startsWith(prefix))) count += 1;
    return original(...args);
  }) as typeof redis.call;
  try {
    await work();
  } finally {
    redis.call = original;
  }
  return count;
}
