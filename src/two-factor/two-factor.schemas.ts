import Joi from 'joi';

const current = Joi.string().max(1024).description('your current password');
const code = Joi.string()
  .trim()
  .max(64)
  .description('a 6-digit code from your authenticator app, or one of your recovery codes');

export interface PasswordConfirmation {
  current?: string;
}

export interface CodeConfirmation {
  code: string;
}

export interface PasswordAndCode {
  current?: string;
  code?: string;
}

/** The password is checked by the service (422 naming `current`), as the account update does. */
export const setupSchema = Joi.object<PasswordConfirmation>({ current });

export const enableSchema = Joi.object<CodeConfirmation>({
  code: code.required().description('the first code your authenticator app shows'),
});

export const passwordAndCodeSchema = Joi.object<PasswordAndCode>({ current, code });
