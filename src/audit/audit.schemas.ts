import Joi from 'joi';
import { dateTimeInput } from '../shared/http/date-input';
import { idSchema } from '../shared/http/id-params';
import { pageQuerySchema, type PageQuery } from '../shared/http/pagination';

export const auditQuerySchema = (pageQuerySchema as Joi.ObjectSchema).keys({
  from: dateTimeInput.description('entries at or after this date-time (UTC)'),
  to: dateTimeInput.description('entries at or before this date-time (UTC)'),
  type: Joi.string()
    .pattern(/^[a-z-]{1,32}$/)
    .description(
      'record type: link, qr, campaign, channel, domain, pixel, overlay, splash, key, account, ...',
    ),
  id: idSchema.description('record id (with `type`)'),
  after: Joi.string()
    .hex()
    .length(24)
    .description(
      'id of the last entry seen: the entries after it, newest first, whatever the depth (`page` is then ignored)',
    ),
});

export interface AuditQuery extends Omit<PageQuery, 'after'> {
  from?: Date;
  to?: Date;
  type?: string;
  id?: number;
  after?: string;
}
