import Joi from 'joi';

/** Where Redis is: one server, a Sentinel-managed primary, or a Redis Cluster. */
export type RedisMode = 'standalone' | 'sentinel' | 'cluster';

export interface RedisNode {
  readonly host: string;
  readonly port: number;
}

export interface RedisConfig {
  readonly mode: RedisMode;
  /** Standalone only (REDIS_URL); its password and `rediss://` apply there. */
  readonly url: string;
  /** Cluster seeds (REDIS_CLUSTER_NODES) or sentinels (REDIS_SENTINELS). */
  readonly nodes: readonly RedisNode[];
  /** The primary's name the sentinels know (REDIS_SENTINEL_NAME). */
  readonly sentinelName: string | undefined;
  readonly username: string | undefined;
  readonly password: string | undefined;
  /** Password of the sentinels themselves, when they ask for one. */
  readonly sentinelPassword: string | undefined;
  /** TLS to every node (and sentinel); `rediss://` in REDIS_URL says the same. */
  readonly tls: boolean;
}

/** The variables this module reads, validated with the rest of config.ts's schema. */
export const redisConfigSchema = {
  REDIS_URL: Joi.string()
    .uri({ scheme: ['redis', 'rediss'] })
    .default('redis://127.0.0.1:6379'),
  REDIS_CLUSTER_NODES: Joi.string().empty(''),
  REDIS_SENTINELS: Joi.string().empty(''),
  REDIS_SENTINEL_NAME: Joi.string()
    .pattern(/^[A-Za-z0-9._-]{1,64}$/)
    .empty(''),
  REDIS_USERNAME: Joi.string().empty(''),
  REDIS_PASSWORD: Joi.string().empty(''),
  REDIS_SENTINEL_PASSWORD: Joi.string().empty(''),
  REDIS_TLS: Joi.string().valid('0', '1', 'true', 'false').empty('').default('false'),
};

export class RedisConfigError extends Error {
  override name = 'RedisConfigError';
}

/** `10.0.0.1:7000, redis-2:7001` -> nodes; every entry needs a host and a port. */
export function parseNodes(variable: string, raw: string): RedisNode[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) throw new RedisConfigError(`${variable} lists no host:port`);
  return entries.map((entry) => {
    const match = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+):(\d{1,5})$/.exec(entry);
    const port = Number(match?.[2]);
    if (!match?.[1] || !Number.isInteger(port) || port < 1 || port > 65_535) {
      throw new RedisConfigError(`${variable}: ${entry} is not host:port (such as 10.0.0.1:7000)`);
    }
    return { host: match[1].replace(/^\[|\]$/g, ''), port };
  });
}

export interface RedisEnv {
  REDIS_URL: string;
  REDIS_CLUSTER_NODES?: string;
  REDIS_SENTINELS?: string;
  REDIS_SENTINEL_NAME?: string;
  REDIS_USERNAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_SENTINEL_PASSWORD?: string;
  REDIS_TLS: string;
}

/** Builds the Redis block of the config from validated variables (see redisConfigSchema). */
export function parseRedisConfig(v: RedisEnv): RedisConfig {
  if (v.REDIS_CLUSTER_NODES && v.REDIS_SENTINELS) {
    throw new RedisConfigError(
      'Set REDIS_CLUSTER_NODES (a Redis Cluster) or REDIS_SENTINELS (Sentinel), not both',
    );
  }
  const url = new URL(v.REDIS_URL);
  const tls = v.REDIS_TLS === '1' || v.REDIS_TLS === 'true';
  const common = {
    url: v.REDIS_URL,
    username: v.REDIS_USERNAME,
    password: v.REDIS_PASSWORD,
    sentinelPassword: v.REDIS_SENTINEL_PASSWORD,
    sentinelName: undefined,
  };
  if (v.REDIS_CLUSTER_NODES) {
    const nodes = parseNodes('REDIS_CLUSTER_NODES', v.REDIS_CLUSTER_NODES);
    return Object.freeze({ ...common, mode: 'cluster', nodes, tls });
  }
  if (v.REDIS_SENTINELS) {
    if (!v.REDIS_SENTINEL_NAME) {
      throw new RedisConfigError(
        'REDIS_SENTINEL_NAME is required with REDIS_SENTINELS (the name the sentinels monitor, e.g. mymaster)',
      );
    }
    const nodes = parseNodes('REDIS_SENTINELS', v.REDIS_SENTINELS);
    return Object.freeze({
      ...common,
      mode: 'sentinel',
      nodes,
      sentinelName: v.REDIS_SENTINEL_NAME,
      tls,
    });
  }
  return Object.freeze({
    ...common,
    // A password or user in the URL wins over REDIS_PASSWORD / REDIS_USERNAME.
    username: url.username ? decodeURIComponent(url.username) : v.REDIS_USERNAME,
    password: url.password ? decodeURIComponent(url.password) : v.REDIS_PASSWORD,
    mode: 'standalone',
    nodes: [],
    tls: tls || url.protocol === 'rediss:',
  });
}
