import Joi from 'joi';
import { ROLES, type Role } from './membership.model';

const role = Joi.string().valid(...ROLES);

export const memberAddSchema = Joi.object({
  username: Joi.string().trim().min(1).max(100).required(),
  role: role.required(),
});

export interface MemberAdd {
  username: string;
  role: Role;
}

export const memberUpdateSchema = Joi.object({ role: role.required() });

export interface MemberUpdate {
  role: Role;
}
