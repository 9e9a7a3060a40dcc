import { expect } from 'chai';
import { Router } from 'express';
import Joi from 'joi';
import { formFields } from '../../src/dashboard/form-fields';
import { html, jsonScript } from '../../src/dashboard/html';
import { resourceViews } from '../../src/dashboard/resources';
import { routeTable } from '../../src/dashboard/route-table';
import { bucketStart, clickSeries } from '../../src/dashboard/series';

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
        ['rules', 'json', false, false],
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

  describe('click series', () => {
    it('starts weeks on Monday and months on the first, in UTC', () => {
      const sunday = new Date('2026-11-22T23:30:00Z');
      expect(bucketStart(sunday, 'day').toISOString()).to.equal('2026-11-22T00:00:00.000Z');
      expect(bucketStart(sunday, 'week').toISOString()).to.equal('2026-11-16T00:00:00.000Z');
      expect(bucketStart(sunday, 'month').toISOString()).to.equal('2026-11-01T00:00:00.000Z');
    });

    it('has every bucket of the range, zeros included, and leaves out visits outside it', () => {
      const at = (s: string) => new Date(s);
      const series = clickSeries(
        [
          at('2026-01-02T10:00:00Z'),
          at('2026-01-02T11:00:00Z'),
          at('2026-01-04T00:00:00Z'),
          at('2025-12-01T00:00:00Z'),
        ],
        at('2026-01-01T12:00:00Z'),
        at('2026-01-04T12:00:00Z'),
        'day',
      );
      expect(series).to.deep.equal([
        { t: '2026-01-01', clicks: 0 },
        { t: '2026-01-02', clicks: 2 },
        { t: '2026-01-03', clicks: 0 },
        { t: '2026-01-04', clicks: 1 },
      ]);
    });

    it('crosses month ends correctly', () => {
      const series = clickSeries(
        [],
        new Date('2026-01-31T00:00:00Z'),
        new Date('2026-03-01T00:00:00Z'),
        'month',
      );
      expect(series.map((p) => p.t)).to.deep.equal(['2026-01-01', '2026-02-01', '2026-03-01']);
    });
  });
});
