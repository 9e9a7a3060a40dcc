import type { Response } from 'express';
import Joi from 'joi';
import { errorCodeNames } from '../errors/error-codes';
import type { ResponseDoc } from './endpoint';
import { pageInfo, type PageQuery } from './pagination';

/** The list envelope (spec 4.1); note `error` is the string "0" here, unlike everywhere else. */
export function listEnvelope<T>(key: string, items: T[], total: number, query: PageQuery) {
  return { error: '0', data: { ...pageInfo(total, query), [key]: items } };
}

export function sendList<T>(
  res: Response,
  key: string,
  items: T[],
  total: number,
  query: PageQuery,
): void {
  res.json(listEnvelope(key, items, total, query));
}

/** Create responses (spec 4.2): `{error: 0, id, ...extra}`, HTTP 200 like GemPixel (clients treat anything else as failure). */
export function sendCreated(res: Response, body: { id: number } & Record<string, unknown>): void {
  res.json({ error: 0, ...body });
}

/** Update, delete and assign responses (spec 4.2). */
export function sendMessage(res: Response, message: string): void {
  res.json({ error: 0, message });
}

export function sendData(res: Response, body: Record<string, unknown>): void {
  res.json({ error: 0, ...body });
}

// Response schemas: what the senders above and the presenters produce, for the OpenAPI document.

/** A JSON object whose keys are all present (presenters always write every key, null or not). */
export const record = (keys: Joi.PartialSchemaMap) =>
  Joi.object(keys).options({ presence: 'required' });

/** An object of free keys whose values all follow `value` (statistics tables). */
export const mapOf = (value: Joi.Schema) => Joi.object().pattern(/.*/, value);

export const idJson = Joi.number().integer().min(1).example(42);
export const dateTimeJson = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/)
  .description('UTC, `YYYY-MM-DD HH:MM:SS`')
  .example('2026-01-31 18:04:05');
export const dateJson = Joi.string()
  .pattern(/^\d{4}-\d{2}-\d{2}$/)
  .description('UTC, `YYYY-MM-DD`')
  .example('2026-01-31');
export const urlJson = Joi.string().uri().example('https://example.com/landing');

const count = Joi.number().integer().min(0);

/** The failure body, for routes outside /api that still answer JSON failures (/metrics). */
export const failureJson = record({
  error: Joi.number().valid(1),
  message: Joi.string(),
  code: Joi.string().valid(...errorCodeNames),
  field: Joi.string().optional(),
});

/** Spec 4.1: the list envelope with its items under `key`. */
export function listResponse(key: string, item: Joi.Schema, description: string): ResponseDoc {
  return {
    description,
    schema: record({
      error: Joi.string().valid('0'),
      data: record({
        result: count.description('total number of items'),
        perpage: count,
        currentpage: count,
        nextpage: count,
        maxpage: count,
        [key]: Joi.array().items(item),
      }),
    }),
  };
}

/** Spec 4.2: `{error: 0, id, ...extra}`. */
export function createdResponse(
  extra: Joi.PartialSchemaMap = {},
  description = 'Created',
): ResponseDoc {
  return { description, schema: record({ error: Joi.number().valid(0), id: idJson, ...extra }) };
}

/** Spec 4.2: `{error: 0, message}` for update, delete and assign. */
export const messageJson = record({
  error: Joi.number().valid(0),
  message: Joi.string().example('Link has been successfully updated.'),
});

export function messageResponse(description: string): ResponseDoc {
  return {
    description,
    schema: messageJson,
  };
}

/** `{error: 0, ...body}`. */
export function dataResponse(body: Joi.PartialSchemaMap, description: string): ResponseDoc {
  return { description, schema: record({ error: Joi.number().valid(0), ...body }) };
}
