import Joi from 'joi';

export interface AccountUpdate {
  email?: string;
  password?: string;
}

export const accountUpdateSchema = Joi.object<AccountUpdate>({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254),
  password: Joi.string().min(8).max(1024),
})
  .or('email', 'password')
  .messages({ 'object.missing': 'email or password is required' });
