import Joi from 'joi';
import { AppError } from '../errors/app-error';
import { errorCodeNames, type ErrorCode } from '../errors/error-codes';
import type { ResponseDoc } from './endpoint';
import { blankStripper } from './lenient';
import { record } from './responses';
import { joiField, joiMessage } from './validate';

/** Dub's `/api/links/bulk` takes 100 at a time; so do ours. */
export const BULK_MAX_ITEMS = 100;

/** One item that failed: the item's own field at fault, never the whole request. */
export interface BulkFailure {
  error: 1;
  message: string;
  code: ErrorCode;
  field?: string;
}

export type BulkResult<S extends object> = ({ error: 0 } & S) | BulkFailure;

/** What `perform` answers for one item: its success fields, or the AppError it failed with. */
export type BulkOutcome<S extends object> = S | AppError;

export interface BulkItem<V> {
  /** The item's position in the request. */
  index: number;
  value: V;
}

export function bulkFailure(err: AppError): BulkFailure {
  return {
    error: 1,
    message: err.message,
    code: err.code,
    ...(err.field === undefined ? {} : { field: err.field }),
  };
}

/**
 * The body of a bulk route: `{[key]: [1..100 items]}`. Items are anything here: each is checked
 * on its own by `runBulk`, so one bad item fails alone while the count is the request's (422).
 */
export function bulkBodySchema(key: string, itemDescription: string): Joi.ObjectSchema {
  return Joi.object({
    [key]: Joi.array()
      .items(Joi.any().description(itemDescription))
      .min(1)
      .max(BULK_MAX_ITEMS)
      .required()
      .messages({ 'array.max': `{{#label}} must hold at most ${BULK_MAX_ITEMS} items` }),
  });
}

/** The answer of a bulk route, for the OpenAPI document: one result per item, in order. */
export function bulkResponse(success: Joi.PartialSchemaMap, description: string): ResponseDoc {
  const failure = Joi.object({
    error: Joi.number().valid(1).required(),
    message: Joi.string().required(),
    code: Joi.string()
      .valid(...errorCodeNames)
      .required(),
    field: Joi.string().optional(),
  });
  return {
    description,
    schema: record({
      error: Joi.number().valid(0),
      data: Joi.array().items(
        Joi.alternatives(record({ error: Joi.number().valid(0), ...success }), failure),
      ),
    }),
  };
}

/** Checks one item against its schema with the API's usual leniency; a failure names the field. */
export function itemValidator<V>(schema: Joi.Schema): (item: unknown) => V | AppError {
  const strip = blankStripper(schema);
  const options: Joi.ValidationOptions = { abortEarly: true, convert: true };
  return (item) => {
    const isObject = typeof item === 'object' && item !== null && !Array.isArray(item);
    if (schema.type === 'object' && !isObject)
      return new AppError(422, 'validation_failed', 'item must be a JSON object');
    const input = isObject ? strip(item as Record<string, unknown>) : item;
    const { error, value } = schema.validate(input, options);
    if (!error) return value as V;
    const first = error.details[0];
    return new AppError(422, 'validation_failed', first ? joiMessage(first) : error.message, {
      field: joiField(error),
    });
  };
}

/** An item's own failure (an AppError) as a value; anything else still fails the request. */
export async function settle<S>(work: Promise<S>): Promise<S | AppError> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}

/**
 * Runs a bulk request: validates every item, hands the valid ones to `perform` at once (so it can
 * batch its database work), and answers one result per item in request order. `perform` answers
 * one outcome per item it was given, in the order given.
 */
export async function runBulk<V, S extends object>(
  items: readonly unknown[],
  check: (item: unknown) => V | AppError,
  perform: (valid: ReadonlyArray<BulkItem<V>>) => Promise<ReadonlyArray<BulkOutcome<S>>>,
): Promise<Array<BulkResult<S>>> {
  const results: Array<BulkResult<S> | undefined> = new Array(items.length);
  const valid: Array<BulkItem<V>> = [];
  items.forEach((item, index) => {
    const checked = check(item);
    if (checked instanceof AppError) results[index] = bulkFailure(checked);
    else valid.push({ index, value: checked });
  });
  const outcomes = valid.length ? await perform(valid) : [];
  if (outcomes.length !== valid.length)
    throw new Error(`bulk perform answered ${outcomes.length} outcomes for ${valid.length} items`);
  valid.forEach(({ index }, i) => {
    const outcome = outcomes[i] as BulkOutcome<S>;
    results[index] = outcome instanceof AppError ? bulkFailure(outcome) : { error: 0, ...outcome };
  });
  return results as Array<BulkResult<S>>;
}

/** `perform` for routes whose items are independent: each runs on its own, one at a time. */
export function eachItem<V, S extends object>(
  one: (value: V) => Promise<S>,
): (valid: ReadonlyArray<BulkItem<V>>) => Promise<Array<BulkOutcome<S>>> {
  return async (valid) => {
    const outcomes: Array<BulkOutcome<S>> = [];
    for (const { value } of valid) outcomes.push(await settle(one(value)));
    return outcomes;
  };
}
