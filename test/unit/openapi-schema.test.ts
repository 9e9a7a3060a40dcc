import { expect } from 'chai';
import Joi from 'joi';
import { toJsonSchema } from '../../src/openapi/joi-json-schema';
import { toTemplate } from '../../src/openapi/route-walk';
import { mapOf, record } from '../../src/shared/http/responses';

describe('joi to JSON Schema (OpenAPI 3.1)', () => {
  it('drops the flags joi-to-json leaves on a pattern', () => {
    const schema = toJsonSchema(Joi.string().pattern(/^[^\p{Cc}]*$/u));
    expect(schema.pattern).to.equal('^[^\\p{Cc}]*$');
  });

  it('describes a map by its values, without a stray property named after the regex', () => {
    const schema = toJsonSchema(mapOf(Joi.string()));
    expect(schema.properties).to.deep.equal({});
    expect(schema.patternProperties).to.deep.equal({ '.*': { type: 'string' } });
  });

  it('marks every key of a record required unless it says optional, and allows null where joi does', () => {
    const schema = toJsonSchema(
      record({ a: Joi.string(), b: Joi.string().allow(null), c: Joi.number().optional() }),
    );
    expect(schema.required).to.deep.equal(['a', 'b']);
    expect((schema.properties as Record<string, unknown>).b).to.deep.equal({
      type: ['string', 'null'],
    });
    expect(schema.additionalProperties).to.equal(false);
  });

  it('converts each schema once', () => {
    const joi = Joi.object({ x: Joi.string() });
    expect(toJsonSchema(joi)).to.equal(toJsonSchema(joi));
  });
});

describe('Express paths as OpenAPI templates', () => {
  for (const [express, template] of [
    ['/api/url/:id/update', '/api/url/{id}/update'],
    ['/u/:username/list-:id', '/u/{username}/list-{id}'],
    ['/:alias', '/{alias}'],
    ['/api/urls', '/api/urls'],
  ] as const) {
    it(`${express} -> ${template}`, () => expect(toTemplate(express)).to.equal(template));
  }
});
