import Joi from 'joi';
import { dateTimeInput } from '../shared/http/date-input';
import { pageQuerySchema } from '../shared/http/pagination';
import { PLAN_NAME_PATTERN } from '../plans/plans.config';

/** The rules the CLI and the admin API share for a new user's fields. */
export const USERNAME = Joi.string()
  .trim()
  .pattern(/^[A-Za-z0-9_.-]{2,32}$/)
  .messages({ 'string.pattern.base': 'username must be 2-32 letters, digits, ".", "_" or "-"' });
export const EMAIL = Joi.string().trim().lowercase().email({ tlds: false }).max(254);
export const PASSWORD = Joi.string().min(8).max(1024);

/** GemPixel's `POST /api/user/add`: `planid` is a plan's id (or name), `expiration` its end. */
export interface UserAdd {
  username: string;
  email: string;
  password: string;
  planid?: number | string;
  expiration?: Date;
}

export const userAddSchema = Joi.object<UserAdd>({
  username: USERNAME.required(),
  email: EMAIL.required(),
  password: PASSWORD.required(),
  planid: Joi.alternatives(
    Joi.number().integer().min(1),
    Joi.string().pattern(/^\d+$/),
    Joi.string().pattern(PLAN_NAME_PATTERN),
  ).messages({ 'alternatives.match': 'planid must be a plan id or name' }),
  expiration: dateTimeInput,
});

/** `GET /api/users?filter=`: `admin`, or a plan name (GemPixel's `free`, `pro`...). */
export interface UserListQuery {
  filter?: string;
  limit: number;
  page: number;
}

export const userListQuerySchema = Joi.object<UserListQuery>({
  filter: Joi.string().trim().lowercase().max(32),
  // GemPixel answers every user in one array; pages exist only so a huge instance stays usable.
  limit: Joi.number().integer().min(1).max(1000).default(1000),
  page: pageQuerySchema.extract('page'),
});
