import Joi from 'joi';
import type { LinkRecord } from '../links/link.model';
import { shortUrlOf } from '../links/short-url';
import { formatDateTime } from '../shared/format/dates';
import { dateTimeJson, idJson, record, urlJson } from '../shared/http/responses';
import type { CampaignRecord } from './campaign.model';

export function rotatorUrl(publicUrl: string, slug: string | null | undefined): string | false {
  return slug ? `${publicUrl}/r/${slug}` : false;
}

export function listPageUrl(publicUrl: string, username: string, id: number): string {
  return `${publicUrl}/u/${encodeURIComponent(username)}/list-${id}`;
}

/** A campaign in `GET /api/campaigns` (4.6). */
export function presentCampaign(campaign: CampaignRecord, username: string, publicUrl: string) {
  return {
    id: campaign.id,
    name: campaign.name,
    public: campaign.public,
    rotator: rotatorUrl(publicUrl, campaign.slug),
    list: listPageUrl(publicUrl, username, campaign.id),
  };
}

/** Create and update responses: the spec's quirk puts the name under `domain`; `name` is added. */
export function presentCampaignWrite(
  campaign: CampaignRecord,
  username: string,
  publicUrl: string,
) {
  const { id, name, ...rest } = presentCampaign(campaign, username, publicUrl);
  return { id, domain: name, name, ...rest };
}

/** The JSON of a public list page. */
export function presentPublicList(
  campaign: CampaignRecord,
  links: LinkRecord[],
  origins: ReadonlyMap<number, string>,
  publicUrl: string,
) {
  return {
    id: campaign.id,
    name: campaign.name,
    links: links.map((l) => ({
      id: l.id,
      alias: l.alias,
      shorturl: shortUrlOf(l, origins, publicUrl),
      title: l.title,
      date: formatDateTime(l.createdAt),
    })),
  };
}

const campaignFields = {
  id: idJson,
  name: Joi.string().allow('').example('Spring sale'),
  public: Joi.boolean(),
  rotator: Joi.alternatives(urlJson, Joi.boolean().valid(false)).description(
    'the rotator URL, or false without a slug',
  ),
  list: urlJson,
};

export const campaignJson = record(campaignFields);

/** Create and update answers, `{error: 0, ...}` around these. */
export const campaignWriteFields = {
  ...campaignFields,
  domain: Joi.string().allow('').description('the campaign name (a quirk of the spec)'),
};

export const publicListJson = record({
  id: idJson,
  name: Joi.string().allow(''),
  links: Joi.array().items(
    record({
      id: idJson,
      alias: Joi.string(),
      shorturl: urlJson,
      title: Joi.string().allow(''),
      date: dateTimeJson,
    }),
  ),
});
