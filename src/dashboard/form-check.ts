import { Router } from 'express';
import Joi from 'joi';
import { notFound } from '../shared/errors/app-error';
import { sendData } from '../shared/http/responses';
import { joiMessage } from '../shared/http/validate';
import { validate } from '../shared/http/validate';
import { linkFormSchemas } from './link-forms';
import { resourceFormSchemas } from './resources';
import type { CellError } from './view-types';

interface FieldCheck {
  form: string;
  field: string;
  value: unknown;
}

const checkSchema = Joi.object<FieldCheck>({
  form: Joi.string().max(100).required(),
  field: Joi.string().max(100).required(),
  value: Joi.any().required(),
});

/**
 * Validates one field of a dashboard form against the very schema its API route validates with,
 * reporting every failing cell (the route stops at the first) in the words the route would use:
 * the row editors check as a person types, and no message is written twice.
 */
export function checkField(schema: Joi.ObjectSchema, field: string, value: unknown): CellError[] {
  let part: Joi.Schema;
  try {
    part = schema.extract(field);
  } catch {
    throw notFound(`This form has no field ${field}`);
  }
  const { error } = Joi.object({ [field]: part }).validate(
    { [field]: value },
    { abortEarly: false, convert: true },
  );
  return (error?.details ?? []).map((detail) => ({
    path: detail.path.slice(1),
    message: joiMessage(detail),
  }));
}

/** `POST /dashboard/check` under /app/api: `{ form: 'POST /url/add', field, value }`. */
export function formCheckRouter(): Router {
  const schemas = new Map([...linkFormSchemas(), ...resourceFormSchemas()]);
  const router = Router();
  router.post('/dashboard/check', validate({ body: checkSchema }), (req, res) => {
    const { form, field, value } = req.body as FieldCheck;
    const schema = schemas.get(form);
    if (!schema) throw notFound(`No dashboard form ${form}`);
    sendData(res, { data: { errors: checkField(schema, field, value) } });
  });
  return router;
}
