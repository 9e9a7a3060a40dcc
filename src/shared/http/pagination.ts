import Joi from 'joi';

export const DEFAULT_LIMIT = 15;
export const MAX_LIMIT = 100;

export interface PageQuery {
  limit: number;
  page: number;
}

export const pageQuerySchema = Joi.object<PageQuery>({
  limit: Joi.number().integer().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT),
  page: Joi.number().integer().min(1).max(1_000_000).default(1),
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
