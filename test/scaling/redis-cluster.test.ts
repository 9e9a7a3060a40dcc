import { describeCoreFlows } from '../support/core-flows';
import { TestCluster } from '../support/redis-topologies';

describe('on a Redis Cluster (3 masters, 3 replicas): the core flows', function () {
  this.timeout(120_000);
  let cluster: TestCluster;
  before(async () => {
    cluster = await TestCluster.start();
  });
  after(() => cluster?.stop());

  describeCoreFlows(() => ({ REDIS_CLUSTER_NODES: cluster.nodes, REDIS_URL: 'redis://unused:1' }));
});
