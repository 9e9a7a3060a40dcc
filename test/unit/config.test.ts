import { expect } from 'chai';
import { loadConfig } from '../../src/config';

describe('configuration (pure)', () => {
  it('has working defaults for a zero-config start', () => {
    const c = loadConfig({});
    expect(c.port).to.equal(3000);
    expect(c.publicUrl).to.equal('http://localhost:3000');
    expect(c.mongodbUri).to.equal(undefined);
    expect(c.redisUrl).to.equal('redis://127.0.0.1:6379');
    expect(c.planRateLimits).to.deep.equal({});
    expect(c.defaultRateLimit).to.equal(30);
    expect(c.domainCheck).to.equal('dns');
    expect(Object.isFrozen(c)).to.equal(true);
  });

  it('lets the visit drainer linger 200 ms for a fuller batch unless told otherwise', () => {
    expect(loadConfig({}).visitDrainLingerMs).to.equal(200);
    expect(loadConfig({ VISIT_DRAIN_LINGER_MS: '' }).visitDrainLingerMs).to.equal(200);
    expect(loadConfig({ VISIT_DRAIN_LINGER_MS: '0' }).visitDrainLingerMs).to.equal(0);
    expect(loadConfig({ VISIT_DRAIN_LINGER_MS: '1000' }).visitDrainLingerMs).to.equal(1000);
  });

  it('holds a request for an image still rendering up to 5 s unless told otherwise', () => {
    expect(loadConfig({}).qrImageWaitMs).to.equal(5000);
    expect(loadConfig({ QR_IMAGE_WAIT_MS: '' }).qrImageWaitMs).to.equal(5000);
    expect(loadConfig({ QR_IMAGE_WAIT_MS: '0' }).qrImageWaitMs).to.equal(0);
    expect(loadConfig({ QR_IMAGE_WAIT_MS: '30000' }).qrImageWaitMs).to.equal(30000);
  });

  it('derives PUBLIC_URL from PORT and drops a trailing slash', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).to.equal('http://localhost:8080');
    expect(loadConfig({ PUBLIC_URL: 'https://go.example.com/' }).publicUrl).to.equal(
      'https://go.example.com',
    );
  });

  it('reads per-plan caps from PLAN_RATE_LIMITS', () => {
    expect(loadConfig({ PLAN_RATE_LIMITS: '{"pro":120,"team":300}' }).planRateLimits).to.deep.equal(
      { pro: 120, team: 300 },
    );
  });

  it('reads CORS origins as browsers send them, and * for any', () => {
    expect(loadConfig({}).corsOrigins).to.deep.equal([]);
    expect(
      loadConfig({ CORS_ORIGINS: 'https://app.example.com/, http://localhost:5173' }).corsOrigins,
    ).to.deep.equal(['https://app.example.com', 'http://localhost:5173']);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).to.deep.equal(['*']);
  });

  it('leaves /metrics open without METRICS_TOKEN (an empty one counts as unset)', () => {
    expect(loadConfig({}).metricsToken).to.equal(undefined);
    expect(loadConfig({ METRICS_TOKEN: '' }).metricsToken).to.equal(undefined);
    expect(loadConfig({}).workerPort).to.equal(3001);
  });

  it('reads PLANS, whose rate limits join PLAN_RATE_LIMITS and win for the same plan', () => {
    const c = loadConfig({
      PLANS: JSON.stringify([
        { id: 1, name: 'free', maxLinks: 100, maxQrCodes: 0 },
        { id: 2, name: 'pro', rateLimit: 500, maxDomains: 3 },
      ]),
      PLAN_RATE_LIMITS: '{"pro":120,"team":300}',
    });
    expect(c.plans).to.deep.equal([
      { id: 1, name: 'free', maxLinks: 100, maxQrCodes: 0 },
      { id: 2, name: 'pro', rateLimit: 500, maxDomains: 3 },
    ]);
    expect(c.planRateLimits).to.deep.equal({ pro: 500, team: 300 });
    expect(loadConfig({}).plans).to.deep.equal([]);
  });

  const refusals: Array<[NodeJS.ProcessEnv, RegExp]> = [
    [{ PLANS: '[{"id":1' }, /PLANS must be a JSON list/],
    [{ PLANS: '{"id":1,"name":"free"}' }, /PLANS is invalid: value must be an array/],
    [{ PLANS: '[{"name":"free"}]' }, /PLANS is invalid: \[0\]\.id is required/],
    [{ PLANS: '[{"id":1,"name":"Free Plan"}]' }, /PLANS is invalid: \[0\]\.name must be 1-32/],
    [{ PLANS: '[{"id":1,"name":"a"},{"id":1,"name":"b"}]' }, /PLANS is invalid: .*duplicate/],
    [{ PLANS: '[{"id":1,"name":"a","maxLinks":-1}]' }, /PLANS is invalid: \[0\]\.maxLinks/],
    [{ PLANS: '[{"id":1,"name":"a","seats":3}]' }, /PLANS is invalid: \[0\]\.seats is not allowed/],
    [{ PORT: 'eighty' }, /PORT/],
    [{ PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL/],
    [{ MONGODB_URI: 'postgres://x' }, /MONGODB_URI/],
    [{ REDIS_URL: 'http://x' }, /REDIS_URL/],
    [{ PLAN_RATE_LIMITS: '{pro:1' }, /PLAN_RATE_LIMITS must be a JSON object/],
    [{ PLAN_RATE_LIMITS: '{"pro":0}' }, /PLAN_RATE_LIMITS is invalid/],
    [{ PLAN_RATE_LIMITS: '{"pro":"many"}' }, /PLAN_RATE_LIMITS is invalid/],
    [{ DOMAIN_CHECK: 'maybe' }, /DOMAIN_CHECK/],
    [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    [{ CORS_ORIGINS: 'app.example.com' }, /CORS_ORIGINS: app.example.com is not an origin/],
    [{ CORS_ORIGINS: 'https://app.example.com/path' }, /CORS_ORIGINS: .* must be an origin/],
    [{ CORS_ORIGINS: 'ftp://files.example.com' }, /CORS_ORIGINS: .* must be an origin/],
    [{ METRICS_TOKEN: 'short' }, /METRICS_TOKEN/],
    [{ WORKER_PORT: 'x' }, /WORKER_PORT/],
    [{ VISIT_DRAIN_LINGER_MS: 'soon' }, /VISIT_DRAIN_LINGER_MS: .* must be a number/],
    [{ VISIT_DRAIN_LINGER_MS: '-1' }, /VISIT_DRAIN_LINGER_MS: .* greater than or equal to 0/],
    [{ VISIT_DRAIN_LINGER_MS: '1.5' }, /VISIT_DRAIN_LINGER_MS: .* must be an integer/],
    [{ VISIT_DRAIN_LINGER_MS: '5000' }, /VISIT_DRAIN_LINGER_MS: .* less than or equal to 1000/],
    [{ QR_IMAGE_WAIT_MS: 'a while' }, /QR_IMAGE_WAIT_MS: .* must be a number/],
    [{ QR_IMAGE_WAIT_MS: '-1' }, /QR_IMAGE_WAIT_MS: .* greater than or equal to 0/],
    [{ QR_IMAGE_WAIT_MS: '60000' }, /QR_IMAGE_WAIT_MS: .* less than or equal to 30000/],
  ];
  for (const [env, message] of refusals) {
    it(`refuses ${JSON.stringify(env)} naming the variable`, () => {
      expect(() => loadConfig(env)).to.throw(message);
    });
  }
});
