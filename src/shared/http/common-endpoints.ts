import type Joi from 'joi';
import { scopeOf, type ScopeResource } from '../../auth/scopes';
import { endpoint } from './endpoint';
import { idParams } from './id-params';
import { keysetPageQuerySchema } from './pagination';
import { listResponse, messageResponse } from './responses';

// The spec's three most common operations, declared alike on every resource.

/** `GET /api/<things>`: a page of the caller's records under `key` (spec 4.1). */
export const listEndpoint = (
  tag: string,
  summary: string,
  key: string,
  item: Joi.Schema,
  resource: ScopeResource | '*',
) =>
  endpoint({
    tag,
    scope: scopeOf(resource, 'read'),
    summary,
    query: keysetPageQuerySchema,
    responses: {
      200: listResponse(key, item, 'A page, newest first'),
      304: { description: 'The page is unchanged since the ETag sent in If-None-Match' },
    },
  });

/** `PUT /api/<thing>/:id/update` answering `{error: 0, message}`. */
export const updateEndpoint = (
  tag: string,
  summary: string,
  body: Joi.Schema,
  resource: ScopeResource | '*',
  errors?: readonly number[],
) =>
  endpoint({
    tag,
    scope: scopeOf(resource, 'write'),
    summary,
    params: idParams,
    body,
    responses: { 200: messageResponse('Updated') },
    errors,
  });

/** `DELETE /api/<thing>/:id/delete` answering `{error: 0, message}`. */
export const deleteEndpoint = (
  tag: string,
  summary: string,
  resource: ScopeResource | '*',
  errors?: readonly number[],
) =>
  endpoint({
    tag,
    scope: scopeOf(resource, 'write'),
    summary,
    params: idParams,
    responses: { 200: messageResponse('Deleted') },
    errors,
  });
