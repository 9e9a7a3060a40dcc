import Joi from 'joi';
import { longUrl } from '../links/links.schemas';
import { CUSTOM_ALIAS_PATTERN } from '../links/aliases';

export const MAX_BIO_LINKS = 50;

export interface BioLink {
  title: string;
  url: string;
}

export interface BioCreate {
  name: string;
  alias?: string;
  links: BioLink[];
}

export const bioCreateSchema = Joi.object<BioCreate>({
  name: Joi.string().trim().min(1).max(255).required(),
  alias: Joi.string().pattern(CUSTOM_ALIAS_PATTERN).messages({
    'string.pattern.base': 'alias must be 3-64 letters, digits, hyphens or underscores',
  }),
  links: Joi.array()
    .items(
      Joi.object<BioLink>({
        title: Joi.string().trim().min(1).max(255).required(),
        url: longUrl.required(),
      }),
    )
    .max(MAX_BIO_LINKS)
    .default([]),
});
