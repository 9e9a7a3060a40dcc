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

/** What `sendListPage` sends for a page: its JSON and ETag. */
export interface PageAnswer {
  body: Buffer;
  etag: string | undefined;
}

/** The JSON and ETag of a page answered many times (a cached list page), made on its first answer. */
const pageBodies = new WeakMap<object, PageAnswer>();

/** What `sendListPage` sent for this page object, if it has answered it yet. */
export function sentPageAnswer(page: object): PageAnswer | undefined {
  return pageBodies.get(page);
}

/**
 * `sendList` for a page object that a cache hands out again and again: it is presented,
 * serialised and hashed for its ETag once, and each answer carries the same bytes and headers
 * `res.json` would write. Callers pass the same `key` and `present` for a given page object.
 */
export function sendListPage<T, J>(
  res: Response,
  key: string,
  page: { items: T[]; total: number },
  query: PageQuery,
  present: (item: T) => J,
): void {
  let answer = pageBodies.get(page);
  if (!answer) {
    const envelope = listEnvelope(key, page.items.map(present), page.total, query);
    const body = Buffer.from(JSON.stringify(envelope));
    const etagFn: unknown = res.app.get('etag fn');
    const etag = typeof etagFn === 'function' ? (etagFn as (b: Buffer) => string)(body) : undefined;
    answer = { body, etag };
    pageBodies.set(page, answer);
  }
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  if (answer.etag) res.setHeader('ETag', answer.etag);
  res.send(answer.body);
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
