import { randomBytes } from 'node:crypto';

/**
 * The id the whole run shares, set by the global setup before mocha forks its workers (see
 * root-hooks.ts); a process that was not started by mocha makes its own.
 */
export const RUN_ENV = 'LINKQR_TEST_RUN';
export const newRunId = (): string => `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;

/**
 * One id per test process: its database name and Redis key prefix, so neither parallel runs nor
 * the workers of one run ever collide. The run's id leads, so the global teardown finds them all.
 */
export const runId = `${process.env[RUN_ENV] ?? newRunId()}-${process.pid}`;
export const testDbName = `linkqr_test_${runId}`;
export const testRedisPrefix = `linkqr-test-${runId}:`;

export const state: { mongoUri?: string } = {};

/** The environment every test app starts from; a test overrides what it is about. */
export function baseEnv(): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    PUBLIC_URL: 'http://linkqr.test',
    MONGODB_URI: state.mongoUri,
    MONGODB_DB: testDbName,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: testRedisPrefix,
    // Generous caps, so only the rate-limit tests (which set their own) ever meet one.
    PLAN_RATE_LIMITS: JSON.stringify({ test: 100_000 }),
    ANONYMOUS_RATE_LIMIT: '100000',
    PUBLIC_RATE_LIMIT: '100000',
    SIGNIN_PAGE_LIMIT_PER_IP: '100000',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DOMAIN_CHECK: 'off',
    // One warm-up render per render thread, as before issue 28's thirty: the suite starts many
    // workers, and their warm-up would only add load to a shared machine.
    QR_WARM_UP_RENDERS: '1',
    // An image request waits for its render up to this long (the tests about the wait set their
    // own): the suite runs two files at once, and a render can take seconds on a loaded machine.
    QR_IMAGE_WAIT_MS: '20000',
    // A fixed test key: webhook secrets are encrypted at rest with it.
    WEBHOOK_SECRET_KEY: '0f'.repeat(32),
  };
}
