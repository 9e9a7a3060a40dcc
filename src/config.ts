import ipaddr from 'ipaddr.js';
import Joi from 'joi';
import { mergeRateLimits, parsePlans, PlansConfigError, type Plan } from './plans/plans.config';
import {
  parseRedisConfig,
  redisConfigSchema,
  RedisConfigError,
  type RedisConfig,
  type RedisEnv,
} from './shared/infra/redis-config';

/** MongoDB read preferences MONGODB_READ_PREFERENCE may name (statistics and exports only). */
export const READ_PREFERENCES = [
  'primary',
  'primaryPreferred',
  'secondary',
  'secondaryPreferred',
  'nearest',
] as const;
export type ReadPreference = (typeof READ_PREFERENCES)[number];

export interface Config {
  readonly env: 'development' | 'production' | 'test';
  readonly port: number;
  readonly publicUrl: string;
  /**
   * Where the dashboard answers, when apart from PUBLIC_URL (its own origin, so no visitor page
   * shares it); unset: on PUBLIC_URL's host.
   */
  readonly appUrl: string | undefined;
  /** Unset means: `npm start` runs a local mongod (or, failing that, the in-memory engine). */
  readonly mongodbUri: string | undefined;
  readonly mongodbDbName: string | undefined;
  /** Where statistics and exports read on a replica set (see shared/infra/mongo.ts). */
  readonly mongodbReadPreference: ReadPreference;
  /** The mongod a start without MONGODB_URI runs; unset: the PATH's, else a downloaded one. */
  readonly mongodBinary: string | undefined;
  /** REDIS_URL as given; `redis` says which Redis is used (standalone, Sentinel or cluster). */
  readonly redisUrl: string;
  readonly redis: RedisConfig;
  /** Streams the click queue is split into (keys in different cluster slots). */
  readonly visitStreamPartitions: number;
  /** Prefix of every Redis key this service writes, so several deployments can share one Redis. */
  readonly redisPrefix: string;
  /** Requests per window by plan name, from PLAN_RATE_LIMITS and each plan's `rateLimit`. */
  readonly planRateLimits: Readonly<Record<string, number>>;
  /** The plans of PLANS (empty when unset: every user is then unlimited but for the rate limit). */
  readonly plans: readonly Plan[];
  readonly defaultRateLimit: number;
  /** Cap per client IP for requests that carry no valid key. */
  readonly anonymousRateLimit: number;
  readonly rateLimitWindowMs: number;
  /** Requests per window per client address on the public routes (redirects, QR images, pages); 0: off. */
  readonly publicRateLimit: number;
  readonly publicRateLimitWindowMs: number;
  readonly bodyLimit: string;
  readonly logLevel: string;
  /** Express `trust proxy`: a hop count, a list of addresses/CIDRs, or false. Never `true`. */
  readonly trustProxy: false | number | string;
  readonly shutdownTimeoutMs: number;
  readonly domainCheck: 'dns' | 'off';
  readonly domainTargets: readonly string[];
  /** How often the worker checks each branded domain's ownership record again (issue 29, M6). */
  readonly domainRecheckMs: number;
  readonly countryHeader: string | undefined;
  /** Unset: a random salt is created once per database (see visit-salt.ts). */
  readonly visitorSalt: string | undefined;
  readonly logoDir: string;
  readonly logoAllowPrivate: boolean;
  readonly qrConcurrency: number;
  /** Renders each render thread makes as it starts, so V8 has optimised the path (issue 28). */
  readonly qrWarmUpRenders: number;
  /** How long a request for an image still rendering is held for the render to end. */
  readonly qrImageWaitMs: number;
  /** Where `npm start` keeps the local mongod's data and leaves its address for the CLI. */
  readonly runtimeDir: string;
  /** Browser origins allowed to call /api (`*` for any); empty: none. */
  readonly corsOrigins: readonly string[];
  /** Contact-form messages one overlay accepts per UTC day, from everyone together. */
  readonly contactDailyLimit: number;
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  readonly metricsToken: string | undefined;
  /** The worker's HTTP port for /metrics and /healthz. */
  readonly workerPort: number;
  /** The address the worker's server listens on: loopback unless a scraper elsewhere needs it. */
  readonly workerHost: string;
  /** Unset: raw visits are kept forever. Rollups (the time series) are never deleted. */
  readonly visitRetentionDays: number | undefined;
  /** Audit entries are deleted (by MongoDB's TTL monitor) this many days after they were written. */
  readonly auditRetentionDays: number;
  /** How long the worker's drainer lets a partial batch of visits fill before storing it. */
  readonly visitDrainLingerMs: number;
  /** AES-256-GCM key for webhook secrets at rest; unset: webhooks cannot be added. */
  readonly webhookSecretKey: Buffer | undefined;
  readonly webhookAllowPrivate: boolean;
  /** Lets import sources live on private or loopback addresses (tests, an intranet instance). */
  readonly importAllowPrivate: boolean;
  /** First retry delay of a failed webhook delivery; each next one doubles it. */
  readonly webhookRetryDelayMs: number;
  readonly webhookAttempts: number;
  /** Link monitoring (issue 24): a monitored destination is checked at most once per this. */
  readonly linkCheckIntervalS: number;
  /** Lets monitored destinations live on private or loopback addresses (tests, an intranet). */
  readonly linkCheckAllowPrivate: boolean;
  readonly dashboard: DashboardConfig;
  /** How `npm start` greets a newcomer (see NewcomerConfig). */
  readonly newcomer: NewcomerConfig;
}

/** The terminal and the secrets of a start with nothing configured (issue 27). */
export interface NewcomerConfig {
  /** `auto`: readable lines on a terminal, JSON lines otherwise. */
  readonly logFormat: 'auto' | 'pretty' | 'json';
  /**
   * Whether a missing WEBHOOK_SECRET_KEY and SESSION_SECRET are generated into RUNTIME_DIR/secrets.
   * Unset: `npm start` does, the separate API and worker processes do not (true: they do too, as
   * docker compose asks on its shared data volume; false: nothing is ever generated).
   */
  readonly generateSecrets: boolean | undefined;
}

/** The web dashboard under /app (see src/dashboard/). */
export interface DashboardConfig {
  /** Signs the session cookie; unset means a random one stored once per database. */
  readonly sessionSecret: string | undefined;
  readonly sessionTtlSeconds: number;
  /** A session ends this long after its sign-in however much it is used. */
  readonly sessionMaxAgeSeconds: number;
  /** Failed sign-ins allowed per client address, and per account, in one window. */
  readonly signInLimitPerIp: number;
  readonly signInLimitPerAccount: number;
  /** Sign-in page views (GET and POST) allowed per client address in one window. */
  readonly signInPageLimitPerIp: number;
  readonly signInWindowMs: number;
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `10.0.0.1, 10.1.0.0/16, loopback`: each entry an address, a CIDR or one of Express's names. */
function proxyList(value: string): string {
  if (value === 'true') {
    throw new Error(
      'true would trust any X-Forwarded-For: give the number of proxies in front (e.g. 1) or their addresses or CIDRs',
    );
  }
  const entries = value.split(',').map((s) => s.trim());
  for (const entry of entries) {
    if (PROXY_NAMES.has(entry)) continue;
    const valid = entry.includes('/') ? ipaddr.isValidCIDR(entry) : ipaddr.isValid(entry);
    if (!valid) throw new Error(`${entry} is not an address or a CIDR`);
  }
  return entries.join(',');
}

const planMap = Joi.object().pattern(
  Joi.string().min(1),
  Joi.number().integer().min(1).max(1_000_000),
);

const schema = Joi.object({
  NODE_ENV: Joi.string().valid('development', 'production', 'test').default('development'),
  PORT: Joi.number().port().default(3000),
  // QR codes bake this origin into their images: in production it must be said, never guessed.
  PUBLIC_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .when('NODE_ENV', {
      is: 'production',
      then: Joi.required().messages({
        'any.required': 'PUBLIC_URL is required in production (the origin visitors use)',
      }),
    }),
  APP_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .empty(''),
  // A replica set or sharded cluster lists several hosts, which a URI validator refuses.
  MONGODB_URI: Joi.string()
    .pattern(/^mongodb(\+srv)?:\/\/\S+$/)
    .messages({
      'string.pattern.base': 'MONGODB_URI must start with mongodb:// or mongodb+srv://',
    }),
  MONGODB_DB: Joi.string().pattern(/^[A-Za-z0-9_-]{1,63}$/),
  MONGODB_READ_PREFERENCE: Joi.string()
    .valid(...READ_PREFERENCES)
    .default('primary'),
  MONGOD_BINARY: Joi.string(),
  ...redisConfigSchema,
  REDIS_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]{1,64}$/)
    .default('linkqr:'),
  PLAN_RATE_LIMITS: Joi.string().default('{}'),
  PLANS: Joi.string().allow(''),
  DEFAULT_RATE_LIMIT: Joi.number().integer().min(1).default(30),
  ANONYMOUS_RATE_LIMIT: Joi.number().integer().min(1).default(30),
  RATE_LIMIT_WINDOW_MS: Joi.number().integer().min(1000).default(60_000),
  PUBLIC_RATE_LIMIT: Joi.number().integer().min(0).empty('').default(600),
  PUBLIC_RATE_WINDOW_MS: Joi.number().integer().min(1000).empty('').default(60_000),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('100kb'),
  LOG_LEVEL: Joi.string()
    .valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent')
    .default('info'),
  // Never `true`: it trusts any X-Forwarded-For, so every per-client limit could be spoofed.
  TRUST_PROXY: Joi.alternatives(
    Joi.number().integer().min(0).max(32),
    Joi.string().valid('false'),
    Joi.string().custom(proxyList),
  )
    .default('false')
    .messages({
      'alternatives.match':
        'TRUST_PROXY must be the number of proxies in front (e.g. 1) or a comma-separated list of their addresses or CIDRs (loopback, linklocal, uniquelocal allowed), never true',
    }),
  SHUTDOWN_TIMEOUT_MS: Joi.number().integer().min(0).default(10_000),
  DOMAIN_CHECK: Joi.string().valid('dns', 'off').default('dns'),
  DOMAIN_TARGETS: Joi.string().allow('').default(''),
  DOMAIN_RECHECK_MS: Joi.number()
    .integer()
    .min(60_000)
    .empty('')
    .default(6 * 3_600_000),
  COUNTRY_HEADER: Joi.string().pattern(/^[A-Za-z0-9-]+$/),
  VISITOR_SALT: Joi.string().min(8),
  LOGO_DIR: Joi.string().default('./data/logos'),
  LOGO_ALLOW_PRIVATE: Joi.string().valid('0', '1', 'true', 'false').default('0'),
  QR_CONCURRENCY: Joi.number().integer().min(1).max(64).default(4),
  QR_WARM_UP_RENDERS: Joi.number().integer().min(0).max(1_000).empty('').default(30),
  QR_IMAGE_WAIT_MS: Joi.number().integer().min(0).max(30_000).empty('').default(5_000),
  RUNTIME_DIR: Joi.string().default('./data'),
  CORS_ORIGINS: Joi.string().allow('').default(''),
  METRICS_TOKEN: Joi.string().min(16).allow(''),
  CONTACT_DAILY_LIMIT: Joi.number().integer().min(1).max(1_000_000).empty('').default(100),
  WORKER_PORT: Joi.number().port().default(3001),
  WORKER_HOST: Joi.string().ip().empty('').default('127.0.0.1'),
  VISIT_RETENTION_DAYS: Joi.number().integer().min(1).max(36_500).empty(''),
  AUDIT_RETENTION_DAYS: Joi.number().integer().min(1).max(36_500).empty('').default(365),
  // Clicks must reach the statistics within seconds: a linger is a fraction of one.
  VISIT_DRAIN_LINGER_MS: Joi.number().integer().min(0).max(1000).empty('').default(200),
  VISIT_STREAM_PARTITIONS: Joi.number().integer().min(1).max(64).empty('').default(4),
  WEBHOOK_SECRET_KEY: Joi.string()
    .pattern(/^[0-9a-fA-F]{64}$/)
    .empty('')
    .messages({ 'string.pattern.base': 'WEBHOOK_SECRET_KEY must be 64 hex characters (32 bytes)' }),
  WEBHOOK_ALLOW_PRIVATE: Joi.string().valid('0', '1', 'true', 'false').default('0'),
  IMPORT_ALLOW_PRIVATE: Joi.string().valid('0', '1', 'true', 'false').default('0'),
  WEBHOOK_RETRY_DELAY_MS: Joi.number().integer().min(1).default(30_000),
  WEBHOOK_ATTEMPTS: Joi.number().integer().min(1).max(30).default(10),
  // A check a second at most (tests), a week at least once.
  LINK_CHECK_INTERVAL_S: Joi.number().integer().min(1).max(604_800).empty('').default(3600),
  LINK_CHECK_ALLOW_PRIVATE: Joi.string().valid('0', '1', 'true', 'false').default('0'),
  SESSION_SECRET: Joi.string().min(32).empty(''),
  SESSION_TTL_SECONDS: Joi.number()
    .integer()
    .min(60)
    .default(12 * 3600),
  SESSION_MAX_AGE_SECONDS: Joi.number()
    .integer()
    .min(60)
    .default(7 * 86_400),
  SIGNIN_LIMIT_PER_IP: Joi.number().integer().min(1).default(30),
  SIGNIN_LIMIT_PER_ACCOUNT: Joi.number().integer().min(1).default(10),
  SIGNIN_PAGE_LIMIT_PER_IP: Joi.number().integer().min(1).default(300),
  SIGNIN_WINDOW_MS: Joi.number()
    .integer()
    .min(1000)
    .default(15 * 60_000),
  // The newcomer's start (NewcomerConfig).
  LOG_FORMAT: Joi.string().valid('auto', 'pretty', 'json').empty('').default('auto'),
  GENERATE_SECRETS: Joi.string().valid('0', '1', 'true', 'false').empty(''),
}).unknown(true);

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function parsePlanLimits(raw: string): Record<string, number> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PLAN_RATE_LIMITS must be a JSON object such as {"pro":120}');
  }
  const { error, value } = planMap.validate(parsed);
  if (error) {
    throw new ConfigError(
      `PLAN_RATE_LIMITS is invalid: ${error.message} (expected {"plan": requestsPerMinute})`,
    );
  }
  return value as Record<string, number>;
}

/** `https://app.example.com, http://localhost:5173` -> origins as browsers send them; `*` is any. */
function parseCorsOrigins(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return entries.map((entry) => {
    if (entry === '*') return entry;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        `CORS_ORIGINS: ${entry} is not an origin such as https://app.example.com`,
      );
    }
    if (!['http:', 'https:'].includes(url.protocol) || url.origin !== entry.replace(/\/$/, '')) {
      throw new ConfigError(`CORS_ORIGINS: ${entry} must be an origin (scheme, host, port) only`);
    }
    return url.origin;
  });
}

/** An origin (scheme, host, port), refusing a path, a query or credentials. */
function originOnly(variable: string, raw: string): string {
  const url = new URL(raw);
  if (url.origin === 'null' || url.href.replace(/\/$/, '') !== url.origin) {
    throw new ConfigError(`${variable}: ${raw} must be an origin such as https://app.example.com`);
  }
  return url.origin;
}

/** Reads and validates the environment once; pure, so tests can build any config they need. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const { error, value } = schema.validate(env, { abortEarly: true, convert: true });
  if (error) {
    const variable = error.details[0]?.path.join('.') ?? 'unknown';
    throw new ConfigError(`Invalid configuration: ${variable}: ${error.message}`);
  }
  const v = value as Record<string, unknown> &
    RedisEnv & {
      NODE_ENV: Config['env'];
      PORT: number;
      PUBLIC_URL?: string;
      APP_URL?: string;
      MONGODB_URI?: string;
      MONGODB_DB?: string;
      MONGODB_READ_PREFERENCE: ReadPreference;
      MONGOD_BINARY?: string;
      REDIS_URL: string;
      REDIS_PREFIX: string;
      PLAN_RATE_LIMITS: string;
      PLANS?: string;
      DEFAULT_RATE_LIMIT: number;
      ANONYMOUS_RATE_LIMIT: number;
      RATE_LIMIT_WINDOW_MS: number;
      PUBLIC_RATE_LIMIT: number;
      PUBLIC_RATE_WINDOW_MS: number;
      BODY_LIMIT: string;
      LOG_LEVEL: string;
      TRUST_PROXY: number | string;
      SHUTDOWN_TIMEOUT_MS: number;
      DOMAIN_CHECK: 'dns' | 'off';
      DOMAIN_TARGETS: string;
      DOMAIN_RECHECK_MS: number;
      COUNTRY_HEADER?: string;
      VISITOR_SALT?: string;
      LOGO_DIR: string;
      LOGO_ALLOW_PRIVATE: string;
      QR_CONCURRENCY: number;
      QR_WARM_UP_RENDERS: number;
      QR_IMAGE_WAIT_MS: number;
      RUNTIME_DIR: string;
      CORS_ORIGINS: string;
      METRICS_TOKEN?: string;
      CONTACT_DAILY_LIMIT: number;
      WORKER_PORT: number;
      WORKER_HOST: string;
      VISIT_RETENTION_DAYS?: number;
      AUDIT_RETENTION_DAYS: number;
      VISIT_DRAIN_LINGER_MS: number;
      VISIT_STREAM_PARTITIONS: number;
      WEBHOOK_SECRET_KEY?: string;
      WEBHOOK_ALLOW_PRIVATE: string;
      IMPORT_ALLOW_PRIVATE: string;
      WEBHOOK_RETRY_DELAY_MS: number;
      WEBHOOK_ATTEMPTS: number;
      LINK_CHECK_INTERVAL_S: number;
      LINK_CHECK_ALLOW_PRIVATE: string;
      SESSION_SECRET?: string;
      SESSION_TTL_SECONDS: number;
      SESSION_MAX_AGE_SECONDS: number;
      SIGNIN_LIMIT_PER_IP: number;
      SIGNIN_LIMIT_PER_ACCOUNT: number;
      SIGNIN_PAGE_LIMIT_PER_IP: number;
      SIGNIN_WINDOW_MS: number;
      LOG_FORMAT: NewcomerConfig['logFormat'];
      GENERATE_SECRETS?: string;
    };
  let plans: readonly Plan[];
  let redis: RedisConfig;
  try {
    plans = parsePlans(v.PLANS);
    redis = parseRedisConfig(v);
  } catch (err) {
    if (err instanceof PlansConfigError || err instanceof RedisConfigError) {
      throw new ConfigError(err.message);
    }
    throw err;
  }
  const publicUrl = (v.PUBLIC_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, '');
  return Object.freeze({
    env: v.NODE_ENV,
    port: v.PORT,
    publicUrl,
    appUrl: v.APP_URL === undefined ? undefined : originOnly('APP_URL', v.APP_URL),
    mongodbUri: v.MONGODB_URI,
    mongodbDbName: v.MONGODB_DB,
    mongodbReadPreference: v.MONGODB_READ_PREFERENCE,
    mongodBinary: v.MONGOD_BINARY,
    redisUrl: v.REDIS_URL,
    redis,
    visitStreamPartitions: v.VISIT_STREAM_PARTITIONS,
    redisPrefix: v.REDIS_PREFIX,
    planRateLimits: Object.freeze(mergeRateLimits(parsePlanLimits(v.PLAN_RATE_LIMITS), plans)),
    plans,
    defaultRateLimit: v.DEFAULT_RATE_LIMIT,
    anonymousRateLimit: v.ANONYMOUS_RATE_LIMIT,
    rateLimitWindowMs: v.RATE_LIMIT_WINDOW_MS,
    publicRateLimit: v.PUBLIC_RATE_LIMIT,
    publicRateLimitWindowMs: v.PUBLIC_RATE_WINDOW_MS,
    bodyLimit: v.BODY_LIMIT,
    logLevel: v.LOG_LEVEL,
    trustProxy: v.TRUST_PROXY === 'false' ? false : v.TRUST_PROXY,
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    domainCheck: v.DOMAIN_CHECK,
    domainRecheckMs: v.DOMAIN_RECHECK_MS,
    domainTargets: Object.freeze(
      v.DOMAIN_TARGETS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
    countryHeader: v.COUNTRY_HEADER?.toLowerCase(),
    visitorSalt: v.VISITOR_SALT,
    logoDir: v.LOGO_DIR,
    logoAllowPrivate: v.LOGO_ALLOW_PRIVATE === '1' || v.LOGO_ALLOW_PRIVATE === 'true',
    qrConcurrency: v.QR_CONCURRENCY,
    qrWarmUpRenders: v.QR_WARM_UP_RENDERS,
    qrImageWaitMs: v.QR_IMAGE_WAIT_MS,
    runtimeDir: v.RUNTIME_DIR,
    corsOrigins: Object.freeze(parseCorsOrigins(v.CORS_ORIGINS)),
    metricsToken: v.METRICS_TOKEN || undefined,
    contactDailyLimit: v.CONTACT_DAILY_LIMIT,
    workerPort: v.WORKER_PORT,
    workerHost: v.WORKER_HOST,
    visitRetentionDays: v.VISIT_RETENTION_DAYS,
    auditRetentionDays: v.AUDIT_RETENTION_DAYS,
    visitDrainLingerMs: v.VISIT_DRAIN_LINGER_MS,
    webhookSecretKey: v.WEBHOOK_SECRET_KEY ? Buffer.from(v.WEBHOOK_SECRET_KEY, 'hex') : undefined,
    webhookAllowPrivate: v.WEBHOOK_ALLOW_PRIVATE === '1' || v.WEBHOOK_ALLOW_PRIVATE === 'true',
    importAllowPrivate: v.IMPORT_ALLOW_PRIVATE === '1' || v.IMPORT_ALLOW_PRIVATE === 'true',
    webhookRetryDelayMs: v.WEBHOOK_RETRY_DELAY_MS,
    webhookAttempts: v.WEBHOOK_ATTEMPTS,
    linkCheckIntervalS: v.LINK_CHECK_INTERVAL_S,
    linkCheckAllowPrivate:
      v.LINK_CHECK_ALLOW_PRIVATE === '1' || v.LINK_CHECK_ALLOW_PRIVATE === 'true',
    dashboard: Object.freeze({
      sessionSecret: v.SESSION_SECRET,
      sessionTtlSeconds: v.SESSION_TTL_SECONDS,
      sessionMaxAgeSeconds: v.SESSION_MAX_AGE_SECONDS,
      signInLimitPerIp: v.SIGNIN_LIMIT_PER_IP,
      signInLimitPerAccount: v.SIGNIN_LIMIT_PER_ACCOUNT,
      signInPageLimitPerIp: v.SIGNIN_PAGE_LIMIT_PER_IP,
      signInWindowMs: v.SIGNIN_WINDOW_MS,
    }),
    newcomer: Object.freeze({
      logFormat: v.LOG_FORMAT,
      generateSecrets:
        v.GENERATE_SECRETS === undefined
          ? undefined
          : v.GENERATE_SECRETS === '1' || v.GENERATE_SECRETS === 'true',
    }),
  });
}

/** Every environment variable the service reads (for documentation and deployment checks). */
export const configVariables: readonly string[] = Object.keys(
  (schema.describe() as { keys: Record<string, unknown> }).keys,
);
