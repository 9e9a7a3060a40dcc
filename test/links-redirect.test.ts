import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { client } from './support/http';
import { createLink, eventually, linkCacheLive, submitPassword, visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

describe('short link redirect', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  it('answers 302 to the long URL, not cacheable by the browser', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/landing?a=1&b=%C3%A9' });
    const res = await visit(app, `/${link.alias}`);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://example.com/landing?a=1&b=%C3%A9');
    expect(res.headers.get('cache-control')).to.equal('private, no-store');
  });

  it('answers the same 302 on every request once cached', async () => {
    const { apiKey } = await createTestUser();
    const link = await createLink(app, apiKey, { url: 'https://example.com/again' });
    for (let i = 0; i < 3; i += 1) {
      const res = await visit(app, `/${link.alias}`);
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('https://example.com/again');
    }
  });

  it('answers the visitor 404 page for an unknown alias', async () => {
    const alias = uniqueName('none');
    const res = await visit(app, `/${alias}`);
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
    expect(res.text).to.include(`<code>/${alias}</code>`);
  });

  it('answers 404 for a path that cannot be an alias', async () => {
    const res = await visit(app, '/a.b');
    expect(res.status).to.equal(404);
    expect(res.headers.get('content-type')).to.match(/^text\/html/);
  });

  it('treats aliases as case-sensitive', async () => {
    const { apiKey } = await createTestUser();
    const alias = `Case${uniqueName('x')}`;
    await createLink(app, apiKey, { url: 'https://example.com/', custom: alias });
    expect((await visit(app, `/${alias}`)).status).to.equal(302);
    expect((await visit(app, `/${alias.toLowerCase()}`)).status).to.equal(404);
  });

  it('starts answering an alias that was unknown (and cached as such) once it is created', async () => {
    const { apiKey } = await createTestUser();
    const alias = uniqueName('later');
    expect((await visit(app, `/${alias}`)).status).to.equal(404);
    await createLink(app, apiKey, { url: 'https://example.com/now', custom: alias });
    const res = await visit(app, `/${alias}`);
    expect(res.status).to.equal(302);
    expect(res.headers.get('location')).to.equal('https://example.com/now');
  });

  describe('expiry', () => {
    it('answers 410 after the expiry', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        expiry: '2001-01-01 00:00:00',
      });
      const res = await visit(app, `/${link.alias}`);
      expect(res.status).to.equal(410);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.text).to.include('This link has expired');
    });

    it('redirects before the expiry', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        expiry: '2999-01-01 00:00:00',
      });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    });

    it('answers 410 as soon as a cached link is given a past expiry, and 302 once cleared', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
      await api.put(`/api/url/${link.id}/update`, { expiry: '2001-01-01T00:00:00Z' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(410);
      await api.put(`/api/url/${link.id}/update`, { expiry: null });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    });

    it('answers 410 rather than the password form for an expired protected link', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        expiry: '2001-01-01 00:00:00',
        password: 'pw-secret',
      });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(410);
      expect((await submitPassword(app, link.alias, 'pw-secret')).status).to.equal(410);
    });
  });

  describe('password', () => {
    it('shows a password form instead of redirecting', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/secret',
        password: 'pw-secret',
      });
      const res = await visit(app, `/${link.alias}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('location')).to.equal(null);
      expect(res.text).to.include('<form method="post">');
      expect(res.text).to.include('name="password"');
      expect(res.text).not.to.include('example.com/secret');
      // The form's answer redirects to another origin, which form-action 'self' would block.
      expect(res.headers.get('content-security-policy')).to.include(
        "form-action 'self' http: https:",
      );
    });

    it('redirects once the right password is posted', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/secret',
        password: 'pw 1 with spaces',
      });
      const res = await submitPassword(app, link.alias, 'pw 1 with spaces');
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('https://example.com/secret');
    });

    it('shows the form again with 401 for a wrong or missing password', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/secret',
        password: 'pw-secret',
      });
      for (const attempt of ['wrong', '']) {
        const res = await submitPassword(app, link.alias, attempt);
        expect(res.status).to.equal(401);
        expect(res.text).to.include('Wrong password');
        expect(res.text).to.include('<form method="post">');
        expect(res.headers.get('location')).to.equal(null);
      }
    });

    it('locks a client out after 10 wrong passwords, even for the right one', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/secret',
        password: 'pw-secret',
      });
      for (let i = 0; i < 10; i += 1) {
        expect((await submitPassword(app, link.alias, `guess${i}`)).status).to.equal(401);
      }
      for (const attempt of ['guess10', 'pw-secret']) {
        const res = await submitPassword(app, link.alias, attempt);
        expect(res.status).to.equal(429);
        expect(Number(res.headers.get('retry-after'))).to.be.within(1, 900);
        expect(res.text).to.include('Too many wrong passwords');
      }
    });

    it('asks for the password once one is set on a cached link, and not once removed', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
      await api.put(`/api/url/${link.id}/update`, { password: 'pw-secret' });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(200);
      await api.put(`/api/url/${link.id}/update`, { password: null });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    });

    it('redirects a post on a link without password like a visit', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/open' });
      const res = await submitPassword(app, link.alias, 'anything');
      expect(res.status).to.equal(302);
      expect(res.headers.get('location')).to.equal('https://example.com/open');
    });
  });

  describe('across API processes', () => {
    let other: TestApp;
    before(async () => {
      other = await startTestApp();
    });
    after(() => other.close());

    it('drops a link another process cached when it is updated or deleted', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/v1' });
      await linkCacheLive(other);
      expect((await visit(other, `/${link.alias}`)).headers.get('location')).to.equal(
        'https://example.com/v1',
      );
      await client(app.url, apiKey).put(`/api/url/${link.id}/update`, {
        url: 'https://example.com/v2',
      });
      await eventually(
        async () =>
          (await visit(other, `/${link.alias}`)).headers.get('location') ===
          'https://example.com/v2',
        'the other process redirects to the new URL',
      );
      await client(app.url, apiKey).delete(`/api/url/${link.id}/delete`);
      await eventually(
        async () => (await visit(other, `/${link.alias}`)).status === 404,
        'the other process forgets the deleted link',
      );
    });
  });
});
