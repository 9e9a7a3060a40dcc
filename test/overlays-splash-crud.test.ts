import { expect } from 'chai';
import { CONTACT_LIMIT } from '../src/overlays/overlays.public';
import { startTestApp, type TestApp } from './support/app-harness';
import { addOverlay, addSplash } from './support/behaviour';
import { client, DATE_TIME, request, type ListBody } from './support/http';
import { createLink, visit } from './support/links';
import { createTestUser } from './support/users';

interface ResponseItem {
  id: number;
  link: number;
  name: string;
  email: string;
  message: string;
  date: string;
}

describe('CTA overlays and splash pages over the API', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('overlays', () => {
    it('creates, lists with every setting, updates and deletes', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const add = await api.post<{ id: number }>('/api/overlay/add', {
        name: 'Promo',
        type: 'message',
        message: 'Hello',
        button: 'Go',
        link: 'https://example.com/go',
        color: '#000000',
        background: '#FFEEDD',
        position: 'top-right',
      });
      expect(add.status).to.equal(200);
      expect(add.body).to.deep.equal({ error: 0, id: add.body.id });
      const update = await api.put(`/api/overlay/${add.body.id}/update`, { message: 'Hi' });
      expect(update.body).to.deep.equal({
        error: 0,
        message: 'Overlay has been successfully updated.',
      });
      const list = await api.get<ListBody<'cta', Record<string, unknown>>>('/api/overlay');
      expect(list.body.data.cta).to.deep.equal([
        {
          id: add.body.id,
          type: 'message',
          name: 'Promo',
          date: list.body.data.cta[0]?.date,
          message: 'Hi',
          button: 'Go',
          link: 'https://example.com/go',
          color: '#000000',
          background: '#FFEEDD',
          position: 'top-right',
          responses: 0,
        },
      ]);
      expect(list.body.data.cta[0]?.date).to.match(DATE_TIME);
      const del = await api.delete(`/api/overlay/${add.body.id}/delete`);
      expect(del.body).to.deep.equal({
        error: 0,
        message: 'Overlay has been successfully deleted.',
      });
      expect((await api.get<ListBody<'cta', unknown>>('/api/overlay')).body.data.cta).to.deep.equal(
        [],
      );
    });

    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['no type', { name: 'x' }, 'type is required'],
      ['an unknown type', { name: 'x', type: 'popup' }, 'type must be one of [message, contact]'],
      ['no name', { type: 'message' }, 'name is required'],
      [
        'a colour not in #RRGGBB',
        { name: 'x', type: 'message', color: 'red' },
        'color must be a HEX color such as #1A2B3C',
      ],
      [
        'an unknown position',
        { name: 'x', type: 'message', position: 'middle' },
        'position must be one of [bottom-right, bottom-left, top-right, top-left]',
      ],
      [
        'a link that is not http(s)',
        { name: 'x', type: 'message', link: 'javascript:alert(1)' },
        'link must be an http or https URL',
      ],
      ['an unknown field', { name: 'x', type: 'message', size: 3 }, 'size is not allowed'],
    ];
    for (const [what, body, message] of refusals) {
      it(`answers 422 for ${what}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/overlay/add', body);
        expect(res.status).to.equal(422);
        const field = message.split(' ')[0];
        expect(res.body).to.deep.equal({ error: 1, code: 'validation_failed', field, message });
      });
    }

    it('answers 422 for an empty update and 404 for another user’s overlay', async () => {
      const owner = await createTestUser();
      const other = await createTestUser();
      const id = await addOverlay(app, owner.apiKey);
      const empty = await client(app.url, owner.apiKey).put(`/api/overlay/${id}/update`, {});
      expect(empty.status).to.equal(422);
      const api = client(app.url, other.apiKey);
      for (const res of [
        await api.put(`/api/overlay/${id}/update`, { name: 'mine' }),
        await api.delete(`/api/overlay/${id}/delete`),
        await api.get(`/api/overlay/${id}/responses`),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.equal({
          error: 1,
          code: 'not_found',
          message: 'Overlay not found',
        });
      }
    });
  });

  describe('splash pages', () => {
    it('creates, lists with its content, updates and deletes', async () => {
      const { apiKey } = await createTestUser();
      const api = client(app.url, apiKey);
      const add = await api.post<{ id: number }>('/api/splash/add', {
        name: 'Launch',
        title: 'We launched',
        message: 'Come see',
        image: 'https://img.example.com/a.png',
        link: 'https://example.com/buy',
        button: 'Buy',
        counter: 8,
      });
      expect(add.body).to.deep.equal({ error: 0, id: add.body.id });
      const update = await api.put(`/api/splash/${add.body.id}/update`, { counter: 2 });
      expect(update.body).to.deep.equal({
        error: 0,
        message: 'Splash page has been successfully updated.',
      });
      const list = await api.get<ListBody<'splash', Record<string, unknown>>>('/api/splash');
      expect(list.body.data.splash).to.deep.equal([
        {
          id: add.body.id,
          name: 'Launch',
          date: list.body.data.splash[0]?.date,
          title: 'We launched',
          message: 'Come see',
          image: 'https://img.example.com/a.png',
          link: 'https://example.com/buy',
          button: 'Buy',
          counter: 2,
        },
      ]);
    });

    it('answers 422 for bad content and 404 for another user’s page', async () => {
      const owner = await createTestUser();
      const other = await createTestUser();
      const api = client(app.url, owner.apiKey);
      const noName = await api.post('/api/splash/add', { title: 't' });
      expect(noName.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        field: 'name',
        message: 'name is required',
      });
      const counter = await api.post('/api/splash/add', { name: 'n', counter: 61 });
      expect(counter.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        field: 'counter',
        message: 'counter must be less than or equal to 60',
      });
      const image = await api.post('/api/splash/add', {
        name: 'n',
        image: 'data:image/png;base64,AA',
      });
      expect(image.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        field: 'image',
        message: 'image must be an http or https URL',
      });
      const id = await addSplash(app, owner.apiKey);
      const theirs = await client(app.url, other.apiKey).put(`/api/splash/${id}/update`, {
        name: 'x',
      });
      expect(theirs.status).to.equal(404);
      expect(theirs.body).to.deep.equal({
        error: 1,
        code: 'not_found',
        message: 'Splash page not found',
      });
    });

    it('turns the links using a deleted page into direct ones and says so', async () => {
      const { apiKey } = await createTestUser();
      const id = await addSplash(app, apiKey);
      const link = await createLink(app, apiKey, { url: 'https://example.com/', type: id });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(200);
      const del = await client(app.url, apiKey).delete(`/api/splash/${id}/delete`);
      expect(del.body).to.deep.equal({
        error: 0,
        message:
          'Splash page has been successfully deleted. 1 link that used it is now a direct link.',
      });
      const details = await client(app.url, apiKey).get<{ details: Record<string, unknown> }>(
        `/api/url/${link.id}`,
      );
      expect(details.body.details).to.deep.include({ type: 'direct', splash: null });
      expect((await visit(app, `/${link.alias}`)).status).to.equal(302);
    });
  });

  describe('contact overlay responses', () => {
    async function contactPage(apiKey: string) {
      const overlay = await addOverlay(app, apiKey, { type: 'contact', message: 'Write us' });
      const link = await createLink(app, apiKey, {
        url: 'https://example.com/',
        type: `overlay-${overlay}`,
      });
      const page = await visit(app, `/${link.alias}`);
      expect(page.status).to.equal(200);
      const token = /name="token" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
      expect(page.text).to.include(`action="/${link.alias}/contact"`);
      return { overlay, link, token };
    }

    const send = (alias: string, fields: Record<string, string>, accept = 'application/json') =>
      request(app.url, `/${alias}/contact`, {
        method: 'POST',
        rawBody: new URLSearchParams(fields).toString(),
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept,
        },
      });

    it('stores, counts and lists a submission for the owner only', async () => {
      const owner = await createTestUser();
      const { overlay, link, token } = await contactPage(owner.apiKey);
      const res = await send(link.alias, {
        token,
        name: 'Ann <b>',
        email: 'ann@example.com',
        message: 'Call me',
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Thank you, your message has been sent.',
      });
      const list = await client(app.url, owner.apiKey).get<ListBody<'responses', ResponseItem>>(
        `/api/overlay/${overlay}/responses`,
      );
      expect(list.body.error).to.equal('0');
      expect(list.body.data.result).to.equal(1);
      expect(list.body.data.responses).to.deep.equal([
        {
          id: list.body.data.responses[0]?.id,
          link: link.id,
          name: 'Ann <b>',
          email: 'ann@example.com',
          message: 'Call me',
          date: list.body.data.responses[0]?.date,
        },
      ]);
      const overlays = await client(app.url, owner.apiKey).get<
        ListBody<'cta', { responses: number }>
      >('/api/overlay');
      expect(overlays.body.data.cta[0]?.responses).to.equal(1);
      const other = await createTestUser();
      const theirs = await client(app.url, other.apiKey).get(`/api/overlay/${overlay}/responses`);
      expect(theirs.status).to.equal(404);
    });

    it('answers a plain form post with a page', async () => {
      const { apiKey } = await createTestUser();
      const { link, token } = await contactPage(apiKey);
      const res = await send(
        link.alias,
        { token, name: 'A', email: 'a@example.com', message: 'm' },
        'text/html',
      );
      expect(res.status).to.equal(200);
      expect(res.text).to.include('Thank you, your message has been sent.');
      expect(res.headers.get('content-security-policy')).to.match(/^default-src 'none'/);
    });

    it('refuses a missing or forged token, bad fields, a body over the cap, and a flood', async () => {
      const { apiKey } = await createTestUser();
      const { link, token } = await contactPage(apiKey);
      const good = { token, name: 'A', email: 'a@example.com', message: 'm' };
      const forged = await send(link.alias, {
        ...good,
        token: `${token.split('.')[0]}.AAAAAAAAAAAAAAAAAAAAAA`,
      });
      expect(forged.status).to.equal(403);
      expect(forged.body).to.deep.equal({
        error: 1,
        code: 'forbidden',
        message: 'This form has expired: reload the page and try again.',
      });
      const missing = await send(link.alias, { name: 'A', email: 'a@example.com', message: 'm' });
      expect(missing.status).to.equal(422);
      expect(missing.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        field: 'token',
        message: 'token is required',
      });
      const email = await send(link.alias, { ...good, email: 'not-an-email' });
      expect(email.status).to.equal(422);
      expect(email.body).to.deep.equal({
        error: 1,
        code: 'validation_failed',
        field: 'email',
        message: 'email must be a valid email',
      });
      const big = await send(link.alias, { ...good, message: 'x'.repeat(9000) });
      expect(big.status).to.equal(413);
      // Each message needs a page of its own: a token sends one (issue 29, L2).
      const freshToken = async () =>
        /name="token" value="([^"]+)"/.exec((await visit(app, `/${link.alias}`)).text)?.[1] ?? '';
      for (let i = 0; i < CONTACT_LIMIT.perVisitor; i += 1)
        expect((await send(link.alias, { ...good, token: await freshToken() })).status).to.equal(
          200,
        );
      const flood = await send(link.alias, { ...good, token: await freshToken() });
      expect(flood.status).to.equal(429);
      expect(Number(flood.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('answers 404 for a link without a contact overlay', async () => {
      const { apiKey } = await createTestUser();
      const link = await createLink(app, apiKey, { url: 'https://example.com/', type: 'frame' });
      const res = await send(link.alias, {
        token: 'x',
        name: 'A',
        email: 'a@example.com',
        message: 'm',
      });
      expect(res.status).to.equal(404);
    });
  });
});
