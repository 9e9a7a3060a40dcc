import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { createApp } from '../src/app';
import { registeredRoutes } from '../src/openapi/route-walk';
import { errorCodeNames } from '../src/shared/errors/error-codes';
import { startTestApp, type TestApp } from './support/app-harness';
import { request } from './support/http';

interface Operation {
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  security?: unknown[];
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: { Failure: { properties: { code: { enum: string[] } } } } };
}

describe('the OpenAPI document', () => {
  let app: TestApp;
  let document: Document;

  before(async () => {
    app = await startTestApp();
    const res = await request<Document>(app.url, '/api/openapi.json');
    expect(res.status).to.equal(200);
    document = res.body;
  });
  after(() => app.close());

  it('is served without a key and is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).to.equal('3.1.0');
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? [], JSON.stringify(result.errors)).to.deep.equal([]);
    expect(result.valid).to.equal(true);
  });

  it('lists every route the app answers (route coverage)', () => {
    const routes = registeredRoutes(createApp(app.deps));
    // The walk itself must see the routers, or this test would pass on nothing.
    expect(routes.map((r) => `${r.method} ${r.path}`)).to.include.members([
      'put /api/url/:id/update',
      'get /:alias',
      'get /api/openapi.json',
    ]);
    const missing = routes
      .filter((r) => !document.paths[r.template]?.[r.method])
      .map(
        (r) =>
          `${r.method.toUpperCase()} ${r.path} is not in the OpenAPI document: give the route an endpoint({ tag, summary, responses, ... }) declaration in place of validate(...)`,
      );
    expect(missing, missing.join('\n')).to.deep.equal([]);
  });

  it('gives every operation a summary, a tag and schemas that compile', () => {
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        const label = `${method.toUpperCase()} ${path}`;
        expect(op.summary, label).to.be.a('string').with.length.above(3);
        expect(op.tags, label).to.have.length(1);
        const schemas = [
          ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {})),
          ...Object.values(op.requestBody?.content ?? {}),
        ]
          .map((media) => media.schema)
          .filter((s): s is object => typeof s === 'object' && s !== null && !('$ref' in s));
        for (const schema of schemas) expect(() => ajv.compile(schema), label).not.to.throw();
      }
    }
  });

  it('describes authentication per route: /api needs a key except the document itself', () => {
    expect(document.paths['/api/urls']?.get?.security).to.deep.equal([
      { Bearer: ['links:read'] },
      { Token: ['links:read'] },
    ]);
    expect(document.paths['/api/urls']?.get?.responses).to.have.property('401');
    expect(document.paths['/api/openapi.json']?.get?.security).to.deep.equal([]);
    expect(document.paths['/{alias}']?.get?.security).to.deep.equal([]);
  });

  it('takes request schemas from the validators the routes use', () => {
    const add = document.paths['/api/url/add']?.post;
    const schema = add?.requestBody?.content['application/json']?.schema as {
      required: string[];
      properties: Record<string, unknown>;
      additionalProperties: boolean;
    };
    expect(schema.required).to.deep.equal(['url']);
    expect(Object.keys(schema.properties)).to.include.members([
      'url',
      'custom',
      'domain',
      'title',
      'expiry',
      'password',
    ]);
    expect(schema.additionalProperties).to.equal(false);
  });

  it('lists every error code', () => {
    expect(document.components.schemas.Failure.properties.code.enum).to.deep.equal(errorCodeNames);
  });

  it('serves only the Swagger UI files the page loads under /docs/assets', async () => {
    for (const file of ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js']) {
      const res = await request(app.url, `/docs/assets/${file}`);
      expect(res.status, file).to.equal(200);
    }
    for (const file of ['package.json', 'index.html', '../../package.json']) {
      const res = await request(app.url, `/docs/assets/${file}`);
      expect(res.status, file).to.equal(404);
    }
  });
});
