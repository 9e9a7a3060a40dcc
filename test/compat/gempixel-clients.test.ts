/**
 * Replays the request shapes of real programs written against GemPixel's Premium URL Shortener
 * API and judges each answer with that program's own success test. The requests are written
 * from the clients' documented shapes (no code is copied):
 *
 * - the vendor's PHP wrapper, kbrmedia/Premium-URL-Shortener `API/Shortener.php` + `API/readme.md`:
 *   every call is a POST with a JSON body and `Authorization: Token <key>`; the caller reads
 *   `shorturl` from the decoded object once `error` is falsy;
 * - the URLBae Power Automate connector, microsoft/PowerPlatformConnectors
 *   `independent-publisher-connectors/URLBae/apiDefinition.swagger.json`: a success is a 2xx
 *   whose properties parse as the swagger declares them;
 * - a PHP service that creates QR codes and treats any `$httpCode !== 200` as failure (falling
 *   back to a third-party QR service), as reported in issue 8;
 * - GemPixel's /developers Python sample: `requests.request("GET", url, headers=..., json={})`,
 *   i.e. a GET carrying `{}`; a bot built on it posts payload dicts whose unused keys are `None`
 *   and checks `response.json()["error"] == 0`;
 * - GemPixel's /developers C# sample: `HttpClient` with `StringContent("{}", UTF8,
 *   "application/json")` on every method, then `EnsureSuccessStatusCode()` (any 2xx);
 * - a Go client marshalling structs without `omitempty` (unset strings go out as `""`) and
 *   checking `resp.StatusCode != http.StatusOK`.
 */
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../support/app-harness';
import { uniqueDomain } from '../support/domains';
import { linkCacheLive, visit } from '../support/links';
import { createTestUser, uniqueName } from '../support/users';
import { expectDeclaredShape, replay, type WireRequest, type WireResponse } from './replay';

const json = 'application/json';

describe('compat: real GemPixel clients, replayed', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp({
      PLANS: JSON.stringify([
        { id: 1, name: 'free', rateLimit: 100_000 },
        { id: 2, name: 'pro', rateLimit: 100_000 },
      ]),
    });
    await linkCacheLive(app);
  });
  after(() => app.close());

  describe('kbrmedia PHP wrapper (API/Shortener.php)', () => {
    /** `shorten($data)`: POST {base}/api/url/add, JSON-encoded array, Token auth. */
    const shorten = (key: string, data: Record<string, unknown>): WireRequest => ({
      method: 'POST',
      path: '/api/url/add',
      headers: { authorization: `Token ${key}`, 'content-type': json },
      body: JSON.stringify(data),
    });
    /** What the wrapper's callers do with `json_decode($response)`: `!$r->error` then `$r->shorturl`. */
    const phpSucceeded = (res: WireResponse) =>
      !res.body.error && typeof res.body.shorturl === 'string';

    it('shortens a URL, with and without the readme advanced options', async () => {
      const { apiKey } = await createTestUser();
      const simple = await replay(app.url, shorten(apiKey, { url: 'https://gempixel.com' }));
      expect(phpSucceeded(simple), simple.text).to.equal(true);

      const custom = uniqueName('gp');
      // The readme's example password, '123456', is refused the wrapper's way: link passwords are
      // eight characters at least (issue 29, L7; README "Compatibility").
      const readmeExample = await replay(
        app.url,
        shorten(apiKey, { url: 'https://gempixel.com', custom, password: '123456' }),
      );
      expect(phpSucceeded(readmeExample)).to.equal(false);
      expect(readmeExample.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        message: 'password length must be at least 8 characters long',
        field: 'password',
      });
      const advanced = await replay(
        app.url,
        shorten(apiKey, { url: 'https://gempixel.com', custom, password: '12345678' }),
      );
      expect(phpSucceeded(advanced), advanced.text).to.equal(true);
      expect(advanced.body.shorturl).to.equal(`http://linkqr.test/${custom}`);
      // The readme's `toText()` prints the short URL: it must lead to the long one.
      expect((await visit(app, `/${custom}`)).status).to.equal(200); // the password form
    });

    it("fails in the wrapper's way for a bad key: error is set and there is no shorturl", async () => {
      const res = await replay(
        app.url,
        shorten(`lqr_${'C'.repeat(43)}`, { url: 'https://a.example' }),
      );
      expect(phpSucceeded(res)).to.equal(false);
      expect(res.body.error).to.equal(1);
    });
  });

  describe('URLBae Power Automate connector (apiDefinition.swagger.json)', () => {
    /** The connector sends the header value the maker entered: GemPixel's `Bearer <key>`. */
    const call = (key: string, method: string, path: string, body?: unknown): WireRequest => ({
      method,
      path: `/api${path}`,
      headers: { authorization: `Bearer ${key}`, 'content-type': json },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const connectorSucceeded = (res: WireResponse) => res.status >= 200 && res.status < 300;

    it('LinkShorten, LinkList, LinkGet, LinkUpdate and LinkDelete', async () => {
      const { apiKey } = await createTestUser();
      const shortened = await replay(
        app.url,
        call(apiKey, 'POST', '/url/add', {
          url: 'https://example.com/flow',
          custom: uniqueName('flow'),
          password: '',
          expiry: '2031-12-31',
        }),
      );
      expect(connectorSucceeded(shortened), shortened.text).to.equal(true);
      expectDeclaredShape(shortened.body, { error: 'integer', id: 'integer', shorturl: 'string' });
      const id = shortened.body.id as number;

      const list = await replay(app.url, call(apiKey, 'GET', '/urls?limit=10&page=1&order=date'));
      expect(connectorSucceeded(list), list.text).to.equal(true);
      expectDeclaredShape(list.body, {
        error: 'string',
        data: {
          result: 'integer',
          perpage: 'integer',
          currentpage: 'integer',
          nextpage: 'integer',
          maxpage: 'integer',
          urls: [
            {
              id: 'integer',
              alias: 'string',
              shorturl: 'string',
              longurl: 'string',
              clicks: 'integer',
              title: 'string',
              description: 'string',
              date: 'string',
            },
          ],
        },
      });

      const single = await replay(app.url, call(apiKey, 'GET', `/url/${id}`));
      expect(connectorSucceeded(single), single.text).to.equal(true);
      expectDeclaredShape(single.body, {
        error: 'integer',
        details: {
          id: 'integer',
          shorturl: 'string',
          longurl: 'string',
          title: 'string',
          description: 'string',
          expiry: 'string',
          date: 'string',
        },
        data: { clicks: 'integer', uniqueClicks: 'integer' },
      });

      const custom = uniqueName('moved');
      const updated = await replay(
        app.url,
        call(apiKey, 'PUT', `/url/${id}/update`, { url: 'https://example.com/new', custom }),
      );
      expect(connectorSucceeded(updated), updated.text).to.equal(true);
      expectDeclaredShape(updated.body, { error: 'integer', id: 'integer', short: 'string' });
      expect(updated.body.short).to.equal(`http://linkqr.test/${custom}`);

      const deleted = await replay(app.url, call(apiKey, 'DELETE', `/url/${id}/delete`));
      expect(connectorSucceeded(deleted), deleted.text).to.equal(true);
      expectDeclaredShape(deleted.body, { error: 'integer', message: 'string' });
    });

    it('DomainCreate, QRCreate and AccountGet', async () => {
      const { apiKey } = await createTestUser();
      const domain = await replay(
        app.url,
        call(apiKey, 'POST', '/domain/add', {
          domain: uniqueDomain(),
          redirectroot: '',
          redirect404: '',
        }),
      );
      expect(connectorSucceeded(domain), domain.text).to.equal(true);
      expectDeclaredShape(domain.body, { error: 'integer', id: 'integer' });

      const qr = await replay(
        app.url,
        call(apiKey, 'POST', '/qr/add', {
          type: 'link',
          data: 'https://example.com/qr',
          background: 'rgb(255,255,255)',
          foreground: 'rgb(0,0,0)',
          logo: '',
        }),
      );
      expect(connectorSucceeded(qr), qr.text).to.equal(true);
      expectDeclaredShape(qr.body, { error: 'integer', id: 'integer', link: 'string' });

      const account = await replay(app.url, call(apiKey, 'GET', '/account'));
      expect(connectorSucceeded(account), account.text).to.equal(true);
      expectDeclaredShape(account.body, {
        error: 'integer',
        data: { id: 'integer', email: 'string', username: 'string', status: 'string' },
      });
    });

    it('PlanList, UserCreate, UserList, UserGet, PlanSubscribe and UserDelete with an admin key', async () => {
      const { apiKey } = await createTestUser({ admin: true });
      const plans = await replay(app.url, call(apiKey, 'GET', '/plans'));
      expect(connectorSucceeded(plans), plans.text).to.equal(true);
      expectDeclaredShape(plans.body, {
        error: 'integer',
        data: [{ id: 'integer', name: 'string', free: 'boolean', limits: { links: 'integer' } }],
      });

      const username = uniqueName('flowuser');
      const created = await replay(
        app.url,
        call(apiKey, 'POST', '/user/add', {
          username,
          password: 'a long password',
          email: `${username}@example.test`,
          planid: 1,
          expiration: '2032-01-01 00:00:00',
        }),
      );
      expect(connectorSucceeded(created), created.text).to.equal(true);
      expectDeclaredShape(created.body, {
        error: 'integer',
        message: 'string',
        data: { id: 'integer', email: 'string', username: 'string' },
      });
      const userId = (created.body.data as { id: number }).id;

      const users = await replay(app.url, call(apiKey, 'GET', '/users?filter=free'));
      expect(connectorSucceeded(users), users.text).to.equal(true);
      const userShape = {
        id: 'integer',
        email: 'string',
        username: 'string',
        avatar: 'string',
        status: 'string',
        planid: 'integer',
        expires: 'string',
        registered: 'string',
      } as const;
      // Other tests' users share this database; the flow reads the one it created.
      const mine = (users.body.data as Array<{ id: number }>).filter((u) => u.id === userId);
      expect(mine).to.have.length(1);
      expectDeclaredShape({ ...users.body, data: mine }, { error: 'integer', data: [userShape] });

      const subscribed = await replay(
        app.url,
        call(apiKey, 'PUT', `/plan/2/user/${userId}`, { type: 'yearly', expiration: '' }),
      );
      expect(connectorSucceeded(subscribed), subscribed.text).to.equal(true);
      const user = await replay(app.url, call(apiKey, 'GET', `/user/${userId}`));
      expectDeclaredShape(user.body, { error: 'integer', data: userShape });
      expect((user.body.data as { planid: number }).planid).to.equal(2);

      const removed = await replay(app.url, call(apiKey, 'DELETE', `/user/${userId}/delete`));
      expect(connectorSucceeded(removed), removed.text).to.equal(true);
      expectDeclaredShape(removed.body, { error: 'integer', message: 'string' });
    });
  });

  describe('PHP QR service that falls back unless the HTTP code is 200 (issue 8 report)', () => {
    it('gets its QR code from linkqr instead of falling back', async () => {
      const { apiKey } = await createTestUser();
      const res = await replay(app.url, {
        method: 'POST',
        path: '/api/qr/add',
        headers: { authorization: `Bearer ${apiKey}`, 'content-type': json },
        body: JSON.stringify({ type: 'text', data: 'Table 12', name: 'Table 12' }),
      });
      const fellBack = res.status !== 200 || typeof res.body.link !== 'string';
      expect(fellBack, `${res.status} ${res.text}`).to.equal(false);
    });
  });

  describe('GemPixel /developers Python sample and a bot built on it (requests, json=payload)', () => {
    const py = (key: string, method: string, path: string, payload: unknown): WireRequest => ({
      method,
      path,
      // requests sets this Content-Type whenever `json=` is given, `{}` included.
      headers: { authorization: `Bearer ${key}`, 'content-type': json },
      body: JSON.stringify(payload),
    });

    it('GETs with json={}, then shortens with None for the options it does not use', async () => {
      const { apiKey } = await createTestUser();
      const account = await replay(app.url, py(apiKey, 'GET', '/api/account', {}));
      expect(account.body.error).to.equal(0);

      const payload = {
        url: 'https://example.com/py',
        custom: null,
        password: null,
        expiry: null,
        domain: null,
        description: 'posted by a bot',
      };
      const res = await replay(app.url, py(apiKey, 'POST', '/api/url/add', payload));
      expect(res.body.error, res.text).to.equal(0);
      expect(res.body.shorturl).to.be.a('string');

      // The bot later looks its link up by short URL, as GemPixel lets it.
      const found = await replay(
        app.url,
        py(apiKey, 'GET', `/api/urls?short=${encodeURIComponent(res.body.shorturl as string)}`, {}),
      );
      expect(found.body.error, found.text).to.equal(0);
      expect((found.body.data as { id: number }).id).to.equal(res.body.id);
    });
  });

  describe('GemPixel /developers C# sample (HttpClient + StringContent("{}"))', () => {
    const cs = (key: string, method: string, path: string, content = '{}'): WireRequest => ({
      method,
      path,
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json; charset=utf-8',
      },
      body: content,
    });
    /** `EnsureSuccessStatusCode()` throws for anything outside 200-299. */
    const ensureSuccess = (res: WireResponse) => {
      expect(res.status, res.text).to.be.within(200, 299);
    };

    it('GETs lists and details, creates, and DELETEs, all carrying a JSON body', async () => {
      const { apiKey } = await createTestUser();
      ensureSuccess(await replay(app.url, cs(apiKey, 'GET', '/api/account')));
      ensureSuccess(await replay(app.url, cs(apiKey, 'GET', '/api/urls?limit=2&page=1')));
      const created = await replay(
        app.url,
        cs(apiKey, 'POST', '/api/url/add', JSON.stringify({ url: 'https://example.com/cs' })),
      );
      ensureSuccess(created);
      ensureSuccess(await replay(app.url, cs(apiKey, 'GET', `/api/url/${created.body.id}`)));
      ensureSuccess(
        await replay(app.url, cs(apiKey, 'DELETE', `/api/url/${created.body.id}/delete`)),
      );
    });
  });

  describe('Go client (encoding/json without omitempty, checks resp.StatusCode == 200)', () => {
    const goPost = (key: string, method: string, path: string, body: unknown): WireRequest => ({
      method,
      path,
      headers: { authorization: `Token ${key}`, 'content-type': json },
      body: JSON.stringify(body),
    });

    it('creates with zero-valued strings, lists with its own query parameters, and updates', async () => {
      const { apiKey } = await createTestUser();
      const created = await replay(
        app.url,
        goPost(apiKey, 'POST', '/api/url/add', {
          url: 'https://example.com/go',
          custom: '',
          password: '',
          expiry: '',
          domain: '',
          description: '',
        }),
      );
      expect(created.status, created.text).to.equal(200);
      expect(created.body.error).to.equal(0);

      const list = await replay(app.url, {
        method: 'GET',
        path: '/api/urls?limit=15&page=1&order=click&client=go-shortener',
        headers: { authorization: `Token ${apiKey}` },
      });
      expect(list.status, list.text).to.equal(200);

      const updated = await replay(
        app.url,
        goPost(apiKey, 'PUT', `/api/url/${created.body.id}/update`, {
          url: '',
          custom: '',
          password: '',
          expiry: '2033-03-03',
          description: 'updated from Go',
        }),
      );
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body).to.include({
        error: 0,
        id: created.body.id,
        short: created.body.shorturl,
      });
    });
  });
});
