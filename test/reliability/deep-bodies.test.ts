import { expect } from 'chai';
import { createApp } from '../../src/app';
import { everyRoute, type RegisteredRoute } from '../../src/openapi/route-walk';
import { MAX_JSON_DEPTH } from '../../src/shared/http/json-body';
import { startTestApp, type TestApp } from '../support/app-harness';
import { createDashboardUser, signedIn, type DashboardClient } from '../support/dashboard';
import { request, type TestResponse } from '../support/http';

const WRITES = new Set(['post', 'put', 'patch', 'delete']);

/** `[[[...]]]` and `{"a":{"a":...}}` nested `depth` levels. */
const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

/** A request path for a route: every parameter filled with a plausible value. */
function pathOf(route: RegisteredRoute): string {
  return route.path.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) =>
    name === 'type' ? 'links' : '1',
  );
}

function expectTooDeep(res: TestResponse, what: string): void {
  expect(res.status, `${what}: ${res.text.slice(0, 200)}`).to.equal(400);
  expect(res.body, what).to.deep.equal({
    error: 1,
    message: `JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`,
    code: 'bad_json',
  });
}

describe('bodies nested too deep: 400 bad_json on every write route, never a 500 (issue 27)', function () {
  this.timeout(120_000);
  let app: TestApp;
  let key: string;
  let dash: DashboardClient;
  let routes: RegisteredRoute[];

  before(async () => {
    app = await startTestApp();
    const user = await createDashboardUser();
    key = user.apiKey;
    dash = await signedIn(app.url, user);
    routes = everyRoute(createApp(app.deps)).filter((r) => WRITES.has(r.method));
  });
  after(() => app.close());

  it('walks a route table that holds the API and the dashboard API', () => {
    const paths = routes.map((r) => `${r.method} ${r.path}`);
    expect(paths).to.include.members([
      'post /api/url/add',
      'put /api/url/:id/update',
      'post /app/api/url/add',
      'post /app/api/dashboard/qr-preview',
    ]);
  });

  for (const depth of [1_000, 50_000]) {
    it(`answers 400 naming the limit for arrays nested ${depth} deep on every /api write route`, async () => {
      const api = routes.filter((r) => r.path.startsWith('/api/'));
      expect(api.length).to.be.greaterThan(30);
      for (const route of api) {
        const res = await request(app.url, pathOf(route), {
          method: route.method.toUpperCase(),
          key,
          rawBody: arrays(depth),
          headers: { 'content-type': 'application/json' },
        });
        expectTooDeep(res, `${route.method} ${route.path}`);
      }
    });

    it(`answers 400 naming the limit for arrays nested ${depth} deep on every /app/api write route`, async () => {
      // The logo upload takes an image, not JSON: a JSON body there is refused before parsing.
      const dashboardApi = routes.filter(
        (r) => r.path.startsWith('/app/api/') && r.path !== '/app/api/dashboard/logo',
      );
      expect(dashboardApi.length).to.be.greaterThan(30);
      for (const route of dashboardApi) {
        const res = await dash.send(pathOf(route), {
          method: route.method.toUpperCase(),
          rawBody: arrays(depth),
          headers: { 'content-type': 'application/json', 'x-csrf-token': dash.csrf },
        });
        expectTooDeep(res, `${route.method} ${route.path}`);
      }
    });
  }

  it('answers 400 for objects nested 1,000 and 17,000 deep (the most that fits in BODY_LIMIT)', async () => {
    for (const depth of [1_000, 17_000]) {
      const res = await request(app.url, '/api/url/add', {
        key,
        rawBody: objects(depth),
        headers: { 'content-type': 'application/json' },
      });
      expectTooDeep(res, `objects ${depth} deep`);
    }
  });

  it('accepts a body exactly at the limit and counts brackets inside strings as text', async () => {
    const atLimit = await request(app.url, '/api/url/add', {
      key,
      rawBody: `{"url":"https://example.com/${'[{'.repeat(40)}","title":${JSON.stringify('"]}'.repeat(40))},"parameters":${'['.repeat(MAX_JSON_DEPTH - 1)}${']'.repeat(MAX_JSON_DEPTH - 1)}}`,
      headers: { 'content-type': 'application/json' },
    });
    // Nested exactly 32 deep, it reaches validation: the API's own 422 for the field.
    expect(atLimit.status, atLimit.text).to.equal(422);
    expect(atLimit.body.code).to.equal('validation_failed');
  });

  it('refuses a body nested too deep in UTF-16 as well', async () => {
    const res = await fetch(`${app.url}/api/url/add`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json; charset=utf-16le',
      },
      body: Buffer.from(arrays(1_000), 'utf16le'),
    });
    expect(res.status).to.equal(400);
    expect(((await res.json()) as { code: string }).code).to.equal('bad_json');
  });
});
