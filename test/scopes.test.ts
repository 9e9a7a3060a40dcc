import { expect } from 'chai';
import { createApp } from '../src/app';
import { ALL_SCOPES, allows, type Scope } from '../src/auth/scopes';
import { registeredRoutes, type RegisteredRoute } from '../src/openapi/route-walk';
import { startTestApp, type TestApp } from './support/app-harness';
import { request, sweepRequest } from './support/http';
import { createTestUser } from './support/users';

/** A path of the route with every parameter naming nothing, so no request changes anything. */
const concrete = (route: RegisteredRoute) => route.path.replace(/:[A-Za-z0-9_]+/g, '987654321');

const callRoute = (app: TestApp, route: RegisteredRoute, key: string) =>
  sweepRequest(app.url, concrete(route), {
    key,
    method: route.method.toUpperCase(),
    ...(['post', 'put', 'patch'].includes(route.method) ? { body: {} } : {}),
  });

describe('key scopes, from the route table', () => {
  let app: TestApp;
  let routes: RegisteredRoute[];
  /** An administrator's keys, one per scope (admin routes check the administrator flag first). */
  const keyOf = new Map<Scope, string>();

  before(async () => {
    app = await startTestApp();
    routes = registeredRoutes(createApp(app.deps)).filter(
      (r) => r.path.startsWith('/api/') && !r.doc?.public,
    );
    const { apiKey } = await createTestUser({ admin: true });
    for (const scope of ALL_SCOPES) {
      const res = await request<{ key: string }>(app.url, '/api/keys/add', {
        key: apiKey,
        body: { name: `only ${scope}`, scopes: [scope] },
      });
      expect(res.status, res.text).to.equal(200);
      keyOf.set(scope, res.body.key);
    }
  });
  after(() => app.close());

  it('finds the routes to check (the walk sees the routers)', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).to.include.members([
      'get /api/urls',
      'post /api/keys/add',
      'delete /api/key/:id/delete',
    ]);
  });

  it('has every route under /api that takes a key declare its scope', () => {
    const missing = routes
      .filter((r) => !r.doc?.scope)
      .map(
        (r) =>
          `${r.method.toUpperCase()} ${r.path} declares no scope: add scope to its endpoint({...})`,
      );
    expect(missing, missing.join('\n')).to.deep.equal([]);
  });

  it('lets each scope through exactly the routes it covers, and names the scope elsewhere', async function () {
    this.timeout(120_000);
    const wrong: string[] = [];
    for (const scope of ALL_SCOPES) {
      const key = keyOf.get(scope)!;
      for (const route of routes) {
        const needed = route.doc!.scope!;
        const res = await callRoute(app, route, key);
        const refused = (res.body as { code?: string } | undefined)?.code === 'insufficient_scope';
        const what = `${scope} on ${route.method.toUpperCase()} ${route.path} (needs ${needed})`;
        if (allows([scope], needed)) {
          if (refused) wrong.push(`${what}: refused`);
        } else if (
          res.status !== 403 ||
          JSON.stringify(res.body) !==
            JSON.stringify({
              error: 1,
              message: `Forbidden: this key lacks the scope ${needed}`,
              code: 'insufficient_scope',
            })
        ) {
          wrong.push(`${what}: answered ${res.status} ${res.text}`);
        }
      }
    }
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
  });

  it('lists each route’s scope in the OpenAPI document', async () => {
    const res = await request<{ paths: Record<string, Record<string, { 'x-scope'?: string }>> }>(
      app.url,
      '/api/openapi.json',
    );
    const wrong = routes
      .filter((r) => res.body.paths[r.template]?.[r.method]?.['x-scope'] !== r.doc?.scope)
      .map((r) => `${r.method} ${r.path}`);
    expect(wrong, wrong.join('\n')).to.deep.equal([]);
  });
});
