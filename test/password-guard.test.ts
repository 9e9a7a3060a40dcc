import { expect } from 'chai';
import { Redis } from 'ioredis';
import { RedisKeys } from '../src/shared/infra/redis-keys';
import { PasswordGuard } from '../src/visitor/password-guard';
import { testRedisPrefix } from './support/environment';

/** Issue 29, L7: a crowd of wrong guesses must not lock out the visitor with the password. */
describe('link password guard past the per-link cap', () => {
  let redis: Redis;
  before(() => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  });
  after(() => redis.disconnect());

  it('gives each client one try per window, so the right password still opens', async () => {
    const keys = new RedisKeys(`${testRedisPrefix}pw-guard-${Date.now()}:`);
    const guard = new PasswordGuard(redis, keys, (ip) => ip, {
      perClient: 10,
      perLink: 3,
      windowSeconds: 60,
    });
    for (const guesser of ['a', 'b', 'c']) expect(await guard.takeAttempt(1, guesser)).to.equal(0);
    // The cap is reached: a guesser who already failed waits ...
    expect(await guard.takeAttempt(1, 'a')).to.be.above(0);
    // ... while a visitor who has not tried yet gets one try, and one only.
    expect(await guard.takeAttempt(1, 'owner')).to.equal(0);
    await guard.succeeded(1, 'owner');
    expect(await guard.takeAttempt(1, 'late guesser')).to.equal(0);
    expect(await guard.takeAttempt(1, 'late guesser')).to.be.above(0);
  });
});
