import { expect } from 'chai';
import { Router } from 'express';
import Joi from 'joi';
import { formFields } from '../../src/dashboard/form-fields';
import { html, jsonScript } from '../../src/dashboard/html';
import { resourceViews } from '../../src/dashboard/resources';
import { routeTable } from '../../src/dashboard/route-table';

describe('dashboard (pure)', () => {
  describe('html', () => {
    it('escapes every interpolated value unless it is itself html', () => {
      const name = '<script>alert("x")</script>';
      const inner = html`<b>${name}</b>`;
      expect(html`<p title="${name}">${inner}${[1, '&']}</p>`.value).to.equal(
        '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"><b>&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;</b>1&amp;</p>',
      );
      expect(html`${null}${undefined}${false}`.value).to.equal('');
    });

    it('keeps page data from closing its script element', () => {
      const script = jsonScript('page-data', { text: '</script><script>alert(1)</script>' });
      expect(script.value).not.to.include('</script><script>');
      expect(script.value).to.include('\\u003c/script>');
    });
  });

  describe('form fields from joi', () => {
    const schema = Joi.object({
      url: Joi.string().uri().required(),
      kind: Joi.string().valid('a', 'b'),
      public: Joi.boolean(),
      size: Joi.number(),
      rules: Joi.array().items(Joi.object()),
      expiry: Joi.string().allow(null),
      type: Joi.any().forbidden(),
    });

    it('derives each input from the validator, leaving out forbidden fields', () => {
      const fields = formFields(schema, { expiry: { kind: 'datetime', label: 'Expires' } });
      expect(fields.map((f) => [f.name, f.kind, f.required, f.nullable])).to.deep.equal([
        ['url', 'url', true, false],
        ['kind', 'select', false, false],
        ['public', 'checkbox', false, false],
        ['size', 'number', false, false],
        ['rules', 'rows', false, false],
        ['expiry', 'datetime', false, true],
      ]);
      expect(fields[1]?.options).to.deep.equal([
        { value: 'a', label: 'a' },
        { value: 'b', label: 'b' },
      ]);
      expect(fields[5]?.label).to.equal('Expires');
    });
  });

  describe('route table', () => {
    it('lists the routes of nested routers', () => {
      const inner = Router();
      inner.get('/pixels', () => undefined);
      inner.post('/pixel/add', () => undefined);
      const outer = Router();
      outer.use(inner);
      outer.delete('/pixel/:id/delete', () => undefined);
      expect([...routeTable(outer)].sort()).to.deep.equal([
        'DELETE /pixel/:id/delete',
        'GET /pixels',
        'POST /pixel/add',
      ]);
    });

    it('offers only the actions the API has', () => {
      const views = resourceViews(new Set(['GET /splash', 'GET /pixels', 'POST /pixel/add']));
      expect([...views.keys()]).to.deep.equal(['pixels', 'splash']);
      expect(views.get('pixels')?.create?.fields.map((f) => f.name)).to.deep.equal([
        'type',
        'name',
        'tag',
      ]);
      expect(views.get('pixels')?.update).to.equal(undefined);
      expect(views.get('splash')?.create).to.equal(undefined);
    });
  });
});
