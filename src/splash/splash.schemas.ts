import Joi from 'joi';
import { displayName } from '../shared/http/fields';

export interface SplashCreate {
  name: string;
}

/** What an operator may create from the CLI (the API only lists splash pages). */
export const splashCreateSchema = Joi.object<SplashCreate>({
  name: displayName.required(),
});
