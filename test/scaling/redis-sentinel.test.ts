import { describeCoreFlows } from '../support/core-flows';
import { TestSentinel } from '../support/redis-topologies';

describe('on Redis Sentinel (a primary, a replica, a sentinel): the core flows', function () {
  this.timeout(120_000);
  let sentinel: TestSentinel;
  before(async () => {
    sentinel = await TestSentinel.start(1);
  });
  after(() => sentinel?.stop());

  describeCoreFlows(() => ({
    REDIS_SENTINELS: sentinel.addresses,
    REDIS_SENTINEL_NAME: sentinel.name,
    REDIS_URL: 'redis://unused:1',
  }));
});
