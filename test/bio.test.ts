import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { createBio } from './support/bio';
import { client, DATE_TIME } from './support/http';
import { visit } from './support/links';
import { createTestUser, uniqueName } from './support/users';

const PUBLIC = 'http://linkqr.test';

describe('bio pages', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  describe('POST /api/bio/add', () => {
    it('creates a page with a generated alias and answers its public link', async () => {
      const { apiKey } = await createTestUser();
      const res = await client(app.url, apiKey).post<{ id: number; link: string }>('/api/bio/add', {
        name: 'Me',
        links: [{ title: 'Blog', url: 'https://blog.example.com/' }],
      });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ error: 0, id: res.body.id, link: res.body.link });
      expect(res.body.id).to.be.a('number');
      expect(res.body.link).to.match(/^http:\/\/linkqr\.test\/b\/[A-Za-z0-9]{7}$/);
    });

    it('uses a custom alias, and answers 409 when it is taken', async () => {
      const { apiKey } = await createTestUser();
      const alias = uniqueName('bio');
      const created = await createBio(app, apiKey, { name: 'Me', alias });
      expect(created.link).to.equal(`${PUBLIC}/b/${alias}`);
      const other = await createTestUser();
      const res = await client(app.url, other.apiKey).post('/api/bio/add', { name: 'X', alias });
      expect(res.status).to.equal(409);
      expect(res.body).to.deep.include({ error: 1, message: `alias ${alias} is already taken` });
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['name is missing', {}, 'name is required'],
      ['name is empty', { name: '  ' }, 'name is not allowed to be empty'],
      [
        'alias is malformed',
        { name: 'x', alias: 'a/b' },
        'alias must be 3-64 letters, digits, hyphens or underscores',
      ],
      ['links is not a list', { name: 'x', links: 'nope' }, 'links must be an array'],
      [
        'a link has no title',
        { name: 'x', links: [{ url: 'https://e.com/' }] },
        'links[0].title is required',
      ],
      [
        'a link URL is javascript',
        { name: 'x', links: [{ title: 't', url: 'javascript:alert(1)' }] },
        'links[0].url must be an http or https URL',
      ],
      [
        'there are more than 50 links',
        {
          name: 'x',
          links: Array.from({ length: 51 }, () => ({ title: 't', url: 'https://e.com/' })),
        },
        'links must contain less than or equal to 50 items',
      ],
      ['a field is unknown', { name: 'x', theme: 'dark' }, 'theme is not allowed'],
    ];
    for (const [when, body, message] of invalid) {
      it(`answers 422 when ${when}`, async () => {
        const { apiKey } = await createTestUser();
        const res = await client(app.url, apiKey).post('/api/bio/add', body);
        expect(res.status).to.equal(422);
        expect(res.body).to.deep.include({ error: 1, message });
      });
    }
  });

  describe('GET /api/bio', () => {
    it('lists the caller pages newest first, with their links', async () => {
      const { apiKey } = await createTestUser();
      const first = await createBio(app, apiKey, {
        name: 'First',
        links: [
          { title: 'A', url: 'https://a.example/' },
          { title: 'B', url: 'https://b.example/' },
        ],
      });
      const second = await createBio(app, apiKey, { name: 'Second' });
      await createBio(app, (await createTestUser()).apiKey, { name: 'Not mine' });
      const res = await client(app.url, apiKey).get<{ data: { bios: Array<{ date: string }> } }>(
        '/api/bio',
      );
      expect(res.status).to.equal(200);
      const [d2, d1] = res.body.data.bios.map((b) => b.date);
      expect(res.body).to.deep.equal({
        error: '0',
        data: {
          result: 2,
          perpage: 15,
          currentpage: 1,
          nextpage: 1,
          maxpage: 1,
          bios: [
            {
              id: second.id,
              alias: second.alias,
              name: 'Second',
              link: second.link,
              links: [],
              date: d2,
            },
            {
              id: first.id,
              alias: first.alias,
              name: 'First',
              link: first.link,
              links: [
                { title: 'A', url: 'https://a.example/' },
                { title: 'B', url: 'https://b.example/' },
              ],
              date: d1,
            },
          ],
        },
      });
      expect(d1).to.match(DATE_TIME);
    });
  });

  describe('DELETE /api/bio/:id/delete', () => {
    it('deletes the page; its public page is gone and its alias stays reserved', async () => {
      const { apiKey } = await createTestUser();
      const alias = uniqueName('gone');
      const bio = await createBio(app, apiKey, { name: 'Bye', alias });
      const res = await client(app.url, apiKey).delete(`/api/bio/${bio.id}/delete`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({
        error: 0,
        message: 'Bio page has been successfully deleted.',
      });
      expect((await visit(app, `/b/${alias}`)).status).to.equal(404);
      const again = await client(app.url, apiKey).post('/api/bio/add', { name: 'Hi', alias });
      expect(again.status).to.equal(409);
    });

    it('answers 404 for another user page, an unknown id and a second delete', async () => {
      const theirs = await createBio(app, (await createTestUser()).apiKey, { name: 'Theirs' });
      const { apiKey } = await createTestUser();
      const mine = await createBio(app, apiKey, { name: 'Mine' });
      await client(app.url, apiKey).delete(`/api/bio/${mine.id}/delete`);
      for (const id of [theirs.id, mine.id, 999_999_999]) {
        const res = await client(app.url, apiKey).delete(`/api/bio/${id}/delete`);
        expect(res.status).to.equal(404);
        expect(res.body).to.deep.include({ error: 1, message: 'Bio page not found' });
      }
      expect((await visit(app, `/b/${theirs.alias}`)).status).to.equal(200);
    });
  });

  describe('public page /b/:alias', () => {
    it('shows the name and links with every user string escaped', async () => {
      const { apiKey } = await createTestUser();
      const bio = await createBio(app, apiKey, {
        name: '<img src=x onerror=alert(1)>',
        links: [{ title: 'Me & "you"', url: "https://example.com/?a=1&b='2'" }],
      });
      const res = await visit(app, `/b/${bio.alias}`);
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
      expect(res.text).to.include('<h1>&lt;img src=x onerror=alert(1)&gt;</h1>');
      expect(res.text).to.include(
        '<a href="https://example.com/?a=1&amp;b=&#39;2&#39;" rel="nofollow noopener">Me &amp; &quot;you&quot;</a>',
      );
      expect(res.text).not.to.include('<img');
    });

    it('answers the 404 page for an unknown alias', async () => {
      const res = await visit(app, `/b/${uniqueName('none')}`);
      expect(res.status).to.equal(404);
      expect(res.headers.get('content-type')).to.match(/^text\/html/);
    });
  });
});
