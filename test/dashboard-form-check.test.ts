import { expect } from 'chai';
import { startTestApp, type TestApp } from './support/app-harness';
import { createDashboardUser, signedIn, type DashboardClient } from './support/dashboard';
import { client } from './support/http';

interface Checked {
  error: number;
  data: { errors: Array<{ path: Array<string | number>; message: string }> };
}

describe('dashboard field check: the API’s own messages while a person types (issue 27)', () => {
  let app: TestApp;
  let dash: DashboardClient;
  let key: string;
  before(async () => {
    app = await startTestApp();
    const user = await createDashboardUser();
    key = user.apiKey;
    dash = await signedIn(app.url, user);
  });
  after(() => app.close());

  it('names every failing cell of a list, each in the words url/add answers it with', async () => {
    const value = [
      { location: 'Germany', link: 'https://example.de' },
      { location: 'Nowhere', link: 'ftp://example.com' },
    ];
    const res = await dash.api<Checked>('POST', '/dashboard/check', {
      form: 'POST /url/add',
      field: 'geotarget',
      value,
    });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.errors).to.deep.equal([
      { path: [1, 'location'], message: 'location must be a country name or ISO 3166 code' },
      { path: [1, 'link'], message: 'geotarget[1].link must be an http or https URL' },
    ]);
    const api = await client(app.url, key).post('/api/url/add', {
      url: 'https://example.com',
      geotarget: [value[0], { location: 'Germany', link: 'ftp://example.com' }],
    });
    expect(api.body.message).to.equal('geotarget[1].link must be an http or https URL');
  });

  it('answers no message for a valid value, and checks the update form and single-value lists', async () => {
    const ok = await dash.api<Checked>('POST', '/dashboard/check', {
      form: 'PUT /url/:id/update',
      field: 'devicetarget',
      value: [{ device: 'iPhone', link: 'https://example.com/ios' }],
    });
    expect(ok.body.data.errors).to.deep.equal([]);
    const pixels = await dash.api<Checked>('POST', '/dashboard/check', {
      form: 'POST /url/add',
      field: 'pixels',
      value: [3, 3],
    });
    expect(pixels.body.data.errors).to.deep.equal([
      { path: [1], message: 'pixels[1] contains a duplicate value' },
    ]);
  });

  it('answers 404 for an unknown form or field, and 403 without the CSRF token', async () => {
    const form = await dash.api('POST', '/dashboard/check', {
      form: 'POST /nope',
      field: 'a',
      value: 1,
    });
    expect(form.status).to.equal(404);
    const field = await dash.api('POST', '/dashboard/check', {
      form: 'POST /url/add',
      field: 'nope',
      value: 1,
    });
    expect(field.status).to.equal(404);
    const forged = await dash.api(
      'POST',
      '/dashboard/check',
      { form: 'POST /url/add', field: 'url', value: 'x' },
      false,
    );
    expect(forged.status).to.equal(403);
  });
});
