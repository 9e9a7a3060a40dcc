import type Joi from 'joi';
import { linkCreateSchema, linkUpdateSchema } from '../links/links.schemas';
import { formFields } from './form-fields';
import { linkHints } from './link-hints';
import type { FormSpec } from './view-types';

const CREATE = { path: '/url/add', method: 'POST', schema: linkCreateSchema } as const;
const UPDATE = { path: '/url/:id/update', method: 'PUT', schema: linkUpdateSchema } as const;

/** The link page's two forms, read from the schemas `url/add` and `url/:id/update` validate with. */
export function linkFormSpecs(): { create: FormSpec; update: FormSpec } {
  const spec = (form: typeof CREATE | typeof UPDATE): FormSpec => ({
    path: form.path,
    check: `${form.method} ${form.path}`,
    fields: formFields(form.schema, linkHints),
  });
  return { create: spec(CREATE), update: spec(UPDATE) };
}

export function linkFormSchemas(): Map<string, Joi.ObjectSchema> {
  return new Map([CREATE, UPDATE].map((f) => [`${f.method} ${f.path}`, f.schema]));
}
