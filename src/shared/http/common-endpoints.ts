import type Joi from 'joi';
import { endpoint } from './endpoint';
import { idParams } from './id-params';
import { pageQuerySchema } from './pagination';
import { listResponse, messageResponse } from './responses';

// The spec's three most common operations, declared alike on every resource.

/** `GET /api/<things>`: a page of the caller's records under `key` (spec 4.1). */
export const listEndpoint = (tag: string, summary: string, key: string, item: Joi.Schema) =>
  endpoint({
    tag,
    summary,
    query: pageQuerySchema,
    responses: { 200: listResponse(key, item, 'A page, newest first') },
  });

/** `PUT /api/<thing>/:id/update` answering `{error: 0, message}`. */
export const updateEndpoint = (
  tag: string,
  summary: string,
  body: Joi.Schema,
  errors?: readonly number[],
) =>
  endpoint({
    tag,
    summary,
    params: idParams,
    body,
    responses: { 200: messageResponse('Updated') },
    errors,
  });

/** `DELETE /api/<thing>/:id/delete` answering `{error: 0, message}`. */
export const deleteEndpoint = (tag: string, summary: string, errors?: readonly number[]) =>
  endpoint({
    tag,
    summary,
    params: idParams,
    responses: { 200: messageResponse('Deleted') },
    errors,
  });
