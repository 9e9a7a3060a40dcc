import Joi from 'joi';
import { presentLinkBehaviour } from '../../src/links/link-behaviour.presenter';
import {
  linkBehaviourFields,
  type LinkBehaviourInput,
} from '../../src/links/link-behaviour.schemas';
import { behaviourChanges } from '../../src/links/link-behaviour.service';
import type { LinkRecord } from '../../src/links/link.model';
import { AppError } from '../../src/shared/errors/app-error';
import { itemValidator } from '../../src/shared/http/bulk';

const validBehaviour = itemValidator<LinkBehaviourInput>(Joi.object(linkBehaviourFields));

type Shown = ReturnType<typeof presentLinkBehaviour>;

/** Each stored behaviour field of a link and the `url/add` field that sets it. */
const SET_BY: Record<string, keyof Shown> = {
  type: 'type',
  splashId: 'splash',
  overlayId: 'overlay',
  pixelIds: 'pixels',
  geotarget: 'geotarget',
  devicetarget: 'devicetarget',
  languagetarget: 'languagetarget',
  rules: 'rules',
  variants: 'variants',
  maxClicks: 'maxclicks',
  expiredUrl: 'expiredurl',
  monitor: 'monitor',
  fallback: 'fallback',
  parameters: 'parameters',
  metatitle: 'metatitle',
  metadescription: 'metadescription',
  metaimage: 'metaimage',
};

/**
 * A source link's stored fields (a linkqr export's, or a GemPixel-API source's behaviour fields)
 * as `POST /api/url/add` would store them, or why it would refuse them: a file or another service
 * says what they are, and targets, pages and meta tags reach visitors. What no route sets is left
 * behind but the password's hash, the campaign (its reference rewritten here) and the count of
 * clicks. A link whose overlay was not imported becomes a direct link (the report says its
 * reference dropped).
 */
export async function checkedLinkFields(
  userId: number,
  fields: Record<string, unknown>,
): Promise<Record<string, unknown> | AppError> {
  const out: Record<string, unknown> = {};
  if (typeof fields.passwordHash === 'string') out.passwordHash = fields.passwordHash;
  if (typeof fields.campaignId === 'number' || fields.campaignId === null)
    out.campaignId = fields.campaignId;
  const clicks = fields.clicks;
  if (typeof clicks === 'number' && Number.isSafeInteger(clicks) && clicks >= 0)
    out.clicks = clicks;
  const stored = Object.keys(SET_BY).filter((key) => fields[key] !== undefined);
  if (!stored.length) return out;
  const record = { ...fields } as Record<string, unknown>;
  if (record.type === 'overlay' && typeof record.overlayId !== 'number') record.type = 'direct';
  const shown = presentLinkBehaviour(record as unknown as LinkRecord);
  const input: Record<string, unknown> = {};
  for (const key of stored) {
    const field = SET_BY[key] as keyof Shown;
    const value = shown[field];
    // Unset (null, "", []) is what url/add stores when the field is not sent.
    if (value === null || value === '' || (Array.isArray(value) && !value.length)) continue;
    input[field] = value;
  }
  const valid = validBehaviour(input);
  if (valid instanceof AppError) return valid;
  try {
    return { ...out, ...(await behaviourChanges(userId, valid, null)) };
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
}
