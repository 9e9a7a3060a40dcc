import Joi from 'joi';
import { idSchema } from '../shared/http/id-params';

export const SLUG_PATTERN = /^[A-Za-z0-9_-]{3,64}$/;

const name = Joi.string().trim().max(255).allow('');
const slug = Joi.string()
  .pattern(SLUG_PATTERN)
  .messages({ 'string.pattern.base': 'slug must be 3-64 letters, digits, hyphens or underscores' });

export interface CampaignCreate {
  name?: string;
  slug?: string;
  public?: boolean;
}

export const campaignCreateSchema = Joi.object<CampaignCreate>({
  name,
  slug,
  public: Joi.boolean(),
});

/** `slug: null` removes the rotator. */
export interface CampaignUpdate {
  name: string;
  slug?: string | null;
  public?: boolean;
}

export const campaignUpdateSchema = Joi.object<CampaignUpdate>({
  name: name.required(),
  slug: slug.allow(null),
  public: Joi.boolean(),
});

export const assignParams = Joi.object({
  campaignid: idSchema.required(),
  linkid: idSchema.required(),
});

export interface AssignParams {
  campaignid: number;
  linkid: number;
}
