import Joi from 'joi';

export interface AccountUpdate {
  email?: string;
  password?: string;
  /** The current password: required from a dashboard session, ignored with an API key. */
  current?: string;
}

export const accountUpdateSchema = Joi.object<AccountUpdate>({
  email: Joi.string().trim().lowercase().email({ tlds: false }).max(254),
  password: Joi.string().min(8).max(1024),
  current: Joi.string()
    .max(1024)
    .description(
      'your current password: required from a dashboard session (/app/api), ignored with an API key',
    ),
})
  .or('email', 'password')
  .messages({ 'object.missing': 'email or password is required' });
