import { createHash } from 'node:crypto';
import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { RedisReply } from 'rate-limit-redis';
import type { RedisConfig } from './redis-config';

/** A connection to whichever Redis the config names: one server, Sentinel's primary, or a cluster. */
export type RedisClient = Redis | Cluster;

/**
 * What a connection is for; each role has the options it needs on every mode.
 * - `request`: the API's request path. Fails fast while Redis is down (the API answers 503 at
 *   once instead of hanging) and reconnects in the background. Auto-pipelining sends the commands
 *   of concurrent requests (rate-limit counts, queued clicks) in one write: +30 % redirects/s.
 * - `queue`: BullMQ producers; fail fast too, without auto-pipelining (BullMQ's ~60 scripts would
 *   be copied onto every auto-pipeline).
 * - `blocking`: BullMQ workers and the visit drainer: blocking commands are never cut short.
 * - `probe`: health checks, fail fast.
 * - `cli`: connects on first use, queues until then.
 */
export type RedisRole = 'request' | 'queue' | 'blocking' | 'probe' | 'cli';

const failFast: RedisOptions = {
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  connectTimeout: 2000,
  retryStrategy: (times) => Math.min(times * 200, 2000),
};

const roleOptions: Record<RedisRole, RedisOptions> = {
  // A command sent when the connection dropped fails rather than being sent again on reconnect:
  // Redis may have run it (a queued click, a rate-limit count), and its caller knows what to do.
  request: { ...failFast, enableAutoPipelining: true, autoResendUnfulfilledCommands: false },
  queue: failFast,
  probe: failFast,
  blocking: { maxRetriesPerRequest: null, enableOfflineQueue: true },
  cli: { ...failFast, lazyConnect: true, enableOfflineQueue: true },
};

/** Options every node of this deployment is reached with (credentials, TLS). */
function nodeOptions(config: RedisConfig): RedisOptions {
  return {
    ...(config.username ? { username: config.username } : {}),
    ...(config.password ? { password: config.password } : {}),
    ...(config.tls ? { tls: {} } : {}),
  };
}

/** Splits per-connection options into the cluster's own and those of each node connection. */
function clusterOptions(config: RedisConfig, options: RedisOptions): ClusterOptions {
  const { enableOfflineQueue, enableAutoPipelining, lazyConnect, retryStrategy, ...node } = options;
  return {
    enableOfflineQueue: enableOfflineQueue ?? true,
    enableAutoPipelining: enableAutoPipelining ?? false,
    lazyConnect: lazyConnect ?? false,
    clusterRetryStrategy:
      retryStrategy === null ? () => null : (times) => Math.min(times * 200, 2000),
    // A failover takes the cluster a few seconds: commands wait for the new slot owner meanwhile.
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    redisOptions: { ...nodeOptions(config), ...node },
  };
}

/** The one place a Redis connection is made: every role, every mode, from the config. */
export function createRedisClient(
  config: RedisConfig,
  role: RedisRole,
  overrides: RedisOptions = {},
): RedisClient {
  const options = { ...roleOptions[role], ...overrides };
  switch (config.mode) {
    case 'cluster':
      return new Cluster(
        config.nodes.map((n) => ({ host: n.host, port: n.port })),
        clusterOptions(config, options),
      );
    case 'sentinel':
      return new Redis({
        ...nodeOptions(config),
        ...options,
        sentinels: config.nodes.map((n) => ({ host: n.host, port: n.port })),
        name: config.sentinelName,
        ...(config.sentinelPassword ? { sentinelPassword: config.sentinelPassword } : {}),
        ...(config.tls ? { enableTLSForSentinelMode: true, sentinelTLS: {} } : {}),
        // After a failover the old primary, demoted, answers READONLY: reconnect to the new one.
        reconnectOnError: (err) => err.message.startsWith('READONLY'),
      });
    case 'standalone':
      return new Redis(config.url, { ...nodeOptions(config), ...options });
  }
}

/** A connection to one server by URL (tests, benchmarks, private servers). */
export function standaloneRedis(url: string, role: RedisRole, overrides: RedisOptions = {}): Redis {
  return new Redis(url, { ...roleOptions[role], ...overrides });
}

/** Another connection like `client` (same servers and credentials), with some options changed. */
export function duplicateRedisClient(client: RedisClient, overrides: RedisOptions): RedisClient {
  if (client instanceof Cluster) {
    const { enableOfflineQueue, lazyConnect, ...node } = overrides;
    return client.duplicate(undefined, {
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      ...(lazyConnect === undefined ? {} : { lazyConnect }),
      redisOptions: { ...client.options.redisOptions, ...node },
    });
  }
  return client.duplicate(overrides);
}

/**
 * Closes a connection: `QUIT` while it is up, else at once. A `QUIT` sent while it reconnects
 * waits in the offline queue, and on Sentinel, with every sentinel gone, it reconnects for ever:
 * a shutdown waiting for it never ended. BullMQ workers on such a connection are closed with
 * `worker.close(!(await redisAnswers(redis)))` for the same reason: a graceful close waits for the
 * `QUIT` of BullMQ's own blocking connection, and with Redis away no running job could be marked
 * done anyway (BullMQ runs it again once it counts as stalled).
 */
export async function closeRedisClient(redis: RedisClient): Promise<void> {
  if (await redisAnswers(redis)) await redis.quit().catch(() => redis.disconnect());
  else redis.disconnect();
}

/**
 * Whether Redis answers a PING within `timeoutMs`. A shutdown asks rather than reading `status`:
 * a cluster connection still says `ready` for a moment after its servers died, and a graceful
 * close begun in that moment waited for ever.
 */
export async function redisAnswers(redis: RedisClient, timeoutMs = 1000): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([
      redis.ping().then(
        () => true,
        () => false,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once the client is ready, or rejects when it is not within `timeoutMs`. */
export async function waitForRedis(redis: RedisClient, timeoutMs = 5000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`Redis not reachable within ${timeoutMs} ms`));
    }, timeoutMs);
    const onReady = () => {
      cleanup();
      resolve();
    };
    const cleanup = () => {
      clearTimeout(timer);
      redis.off('ready', onReady);
    };
    redis.on('ready', onReady);
  });
}

/**
 * rate-limit-redis loads its scripts with SCRIPT LOAD, which a cluster sends to any node (and a
 * promoted replica may not have): the sha is computed here instead, and EVALSHA falls back to
 * EVAL on the key's own node when that node does not know the script yet.
 */
export function scriptSafeSendCommand(redis: RedisClient) {
  const scripts = new Map<string, string>();
  return async (command: string, ...args: string[]): Promise<RedisReply> => {
    const name = command.toUpperCase();
    if (name === 'SCRIPT' && args[0]?.toUpperCase() === 'LOAD' && args[1] !== undefined) {
      const sha = createHash('sha1').update(args[1]).digest('hex');
      scripts.set(sha, args[1]);
      return sha;
    }
    if (name !== 'EVALSHA') return (await redis.call(command, ...args)) as RedisReply;
    const [sha = '', ...rest] = args;
    try {
      return (await redis.call('EVALSHA', sha, ...rest)) as RedisReply;
    } catch (err) {
      const script = scripts.get(sha);
      if (!script || !(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
      return (await redis.call('EVAL', script, ...rest)) as RedisReply;
    }
  };
}
