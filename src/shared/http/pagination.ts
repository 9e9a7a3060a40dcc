import Joi from 'joi';

export const DEFAULT_LIMIT = 15;
export const MAX_LIMIT = 100;
/**
 * Deepest page: skip-based paging walks every record before the page, so past this a list is
 * read with `after` (the id of the last record seen) where the route offers it.
 */
export const MAX_PAGE = 1000;

export interface PageQuery {
  limit: number;
  page: number;
  /** The id of the last record seen: the records after it in the list's order (keyset paging; lists that offer it). */
  after?: number;
}

/** The page a list request without a query asks for (what `pageQuerySchema` makes of `{}`). */
export const FIRST_PAGE: Readonly<PageQuery> = Object.freeze({ limit: DEFAULT_LIMIT, page: 1 });

export const pageQuerySchema = Joi.object<PageQuery>({
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  page: Joi.number()
    .integer()
    .min(1)
    .max(MAX_PAGE)
    .default(1)
    .messages({ 'number.max': `page must be at most ${MAX_PAGE}; list further with after` }),
});

/**
 * The page query of a list read newest (highest id) first by `listOwned`: `after` (the id of the
 * last record seen) lists on from there by the `{userId, id}` index, whatever the depth.
 */
export const keysetPageQuerySchema = pageQuerySchema.keys({
  after: Joi.number()
    .integer()
    .min(1)
    .description(
      'id of the last record seen: the records after it, newest first, whatever the depth (`page` is then ignored)',
    ),
});

export interface PageInfo {
  result: number;
  perpage: number;
  currentpage: number;
  nextpage: number;
  maxpage: number;
}

/** The list envelope's numbers; a page past the end is allowed and simply holds nothing. */
export function pageInfo(total: number, { page, limit }: PageQuery): PageInfo {
  const maxpage = Math.max(1, Math.ceil(total / limit));
  return {
    result: total,
    perpage: limit,
    currentpage: page,
    nextpage: Math.min(page + 1, maxpage),
    maxpage,
  };
}

export function skipFor({ page, limit }: PageQuery): number {
  return (page - 1) * limit;
}
