import { expect } from 'chai';
import Joi from 'joi';
import { formFields } from '../../src/dashboard/form-fields';
import { linkFormSpecs } from '../../src/dashboard/link-forms';
import { resourceViews } from '../../src/dashboard/resources';
import type { FormField } from '../../src/dashboard/view-types';

/** Every route the resources offer, so every form is built. */
function everyResourceRoute(): Set<string> {
  const routes = new Set<string>();
  for (const name of ['campaign', 'channel', 'domain', 'pixel', 'splash', 'overlay']) {
    const list = {
      campaign: 'campaigns',
      channel: 'channels',
      domain: 'domains',
      pixel: 'pixels',
      splash: 'splash',
      overlay: 'overlay',
    }[name];
    routes.add(`GET /${list}`);
    routes.add(`POST /${name}/add`);
    routes.add(`PUT /${name}/:id/update`);
    routes.add(`DELETE /${name}/:id/delete`);
  }
  return routes;
}

describe('unit: dashboard forms ask for no JSON (issue 27)', () => {
  const links = linkFormSpecs();
  const forms: Array<[string, FormField[]]> = [
    ['link create', links.create.fields],
    ['link update', links.update.fields],
  ];
  for (const view of resourceViews(everyResourceRoute()).values()) {
    if (view.create) forms.push([`${view.key} create`, view.create.fields]);
    if (view.update) forms.push([`${view.key} update`, view.update.fields]);
  }

  it('builds every form, and none has a field of kind json', () => {
    expect(forms.length).to.be.at.least(14);
    for (const [name, fields] of forms) {
      for (const field of fields) expect(field.kind, `${name}: ${field.name}`).to.not.equal('json');
    }
  });

  it('gives each list of the link form a row editor with cells from its items', () => {
    const byName = new Map(links.update.fields.map((f) => [f.name, f]));
    for (const name of ['geotarget', 'devicetarget', 'languagetarget', 'parameters', 'pixels']) {
      expect(byName.get(name)?.kind, name).to.equal('rows');
    }
    // GemPixel's maps are edited inside the rules editor, on both forms (issue 24, item 6).
    for (const fields of [links.create.fields, links.update.fields]) {
      const within = fields.filter((f) => f.within).map((f) => [f.name, f.within]);
      expect(within).to.deep.equal([
        ['geotarget', 'rules'],
        ['devicetarget', 'rules'],
        ['languagetarget', 'rules'],
      ]);
      expect(fields.find((f) => f.name === 'rules')?.kind).to.equal('rules');
    }
    const geo = byName.get('geotarget');
    expect(geo?.rowLabel).to.equal('country rule');
    expect(geo?.maxRows).to.equal(50);
    expect(geo?.columns?.map((c) => [c.name, c.label, c.kind, c.required])).to.deep.equal([
      ['location', 'Country', 'suggest', true],
      ['link', 'Send to', 'url', true],
    ]);
    expect(geo?.columns?.[0]?.options).to.deep.include({ value: 'Germany', label: 'Germany' });
    const device = byName.get('devicetarget')?.columns?.[0];
    expect(device?.kind).to.equal('select');
    expect(device?.options?.map((o) => o.value)).to.include.members(['iPhone', 'Android']);
    const language = byName.get('languagetarget')?.columns?.[0];
    expect(language?.options).to.deep.include({ value: 'fr', label: 'French' });
    expect(byName.get('parameters')?.columns?.map((c) => c.name)).to.deep.equal(['name', 'value']);
    const pixel = byName.get('pixels')?.columns;
    expect(pixel).to.have.length(1);
    expect(pixel?.[0]).to.deep.include({
      name: '',
      label: 'Pixel',
      kind: 'select',
      required: true,
    });
    expect(pixel?.[0]?.optionsFrom?.path).to.equal('/pixels');
  });

  it('derives a row editor for a list the API gains, and refuses to guess an object field', () => {
    const [rules] = formFields(
      Joi.object({
        rules: Joi.array()
          .items(
            Joi.object({ when: Joi.string().valid('a', 'b').required(), to: Joi.string().uri() }),
          )
          .max(5),
      }),
    );
    expect(rules?.kind).to.equal('rows');
    expect(rules?.columns).to.deep.equal([
      {
        name: 'when',
        label: 'When',
        kind: 'select',
        required: true,
        options: [
          { value: 'a', label: 'a' },
          { value: 'b', label: 'b' },
        ],
      },
      { name: 'to', label: 'To', kind: 'url', required: false },
    ]);
    expect(() => formFields(Joi.object({ meta: Joi.object({ a: Joi.string() }) }))).to.throw(
      /no form control/,
    );
  });
});
