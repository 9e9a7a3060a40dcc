import { expect } from 'chai';
import { Histogram, Registry } from 'prom-client';
import { LocalHistogram } from '../../src/shared/metrics/local-histogram';
import { LATENCY_BUCKETS } from '../../src/shared/metrics/api-metrics';

const NAME = 'test_request_duration_seconds';
const HELP = 'Time to answer';

/** The same observations through prom-client's own histogram and through LocalHistogram. */
async function scrapes(observations: Array<[Record<string, string>, number]>) {
  const theirs = new Registry();
  const histogram = new Histogram({
    name: NAME,
    help: HELP,
    labelNames: ['method', 'route', 'status'],
    buckets: LATENCY_BUCKETS,
    registers: [theirs],
  });
  const ours = new Registry();
  const local = new LocalHistogram(NAME, HELP, LATENCY_BUCKETS);
  ours.registerMetric(local.asMetric());
  for (const [labels, seconds] of observations) {
    histogram.observe(labels, seconds);
    local.recorder(labels)(seconds);
  }
  return { theirs: await theirs.metrics(), ours: await ours.metrics(), ours_registry: ours, local };
}

describe('LocalHistogram: prom-client’s histogram text from plain arrays', () => {
  const redirect = { method: 'GET', route: '/:alias', status: '302' };
  const list = { method: 'GET', route: '/api/pixels', status: '200' };

  it('scrapes exactly as prom-client’s histogram for the same observations', async () => {
    const { theirs, ours } = await scrapes([
      [redirect, 0.0004],
      [redirect, 0.001], // on a bound: counted in that bucket, as `le` says
      [redirect, 0.0011],
      [list, 0.03],
      [redirect, 7.5], // above every bound: only in +Inf
      [list, 0],
      [redirect, 0.0004],
    ]);
    expect(ours).to.equal(theirs);
    expect(ours).to.include(
      'test_request_duration_seconds_bucket{le="0.001",method="GET",route="/:alias",status="302"} 3',
    );
  });

  it('answers one recorder per series, and leaves out series reset to nothing', async () => {
    const { ours_registry: registry, local } = await scrapes([[redirect, 0.002]]);
    const again = local.recorder({ ...redirect });
    again(0.003);
    expect(await registry.metrics()).to.include(
      'test_request_duration_seconds_count{method="GET",route="/:alias",status="302"} 2',
    );
    const [json] = await registry.getMetricsAsJSON();
    expect(json?.values[0]).to.deep.include({
      labels: { ...redirect, le: 0.001 },
      value: 0,
      metricName: 'test_request_duration_seconds_bucket',
    });
    registry.resetMetrics();
    expect(await registry.metrics()).not.to.include('_count');
    again(0.004);
    expect(await registry.metrics()).to.include(
      'test_request_duration_seconds_sum{method="GET",route="/:alias",status="302"} 0.004',
    );
  });
});
