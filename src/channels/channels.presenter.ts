import Joi from 'joi';
import { formatDate } from '../shared/format/dates';
import { dateJson, idJson, record, urlJson } from '../shared/http/responses';
import { CHANNEL_ITEM_TYPES } from './channel.model';
import type { ChannelRecord } from './channel.model';
import type { ChannelItemView } from './channel-items';

/** A channel in the list and in the add response (4.7). */
export function presentChannel(channel: ChannelRecord) {
  return {
    id: channel.id,
    name: channel.name,
    description: channel.description,
    color: channel.color,
    starred: channel.starred,
  };
}

export function presentChannelItem(item: ChannelItemView) {
  return {
    type: item.type,
    id: item.id,
    title: item.title,
    preview: item.preview,
    link: item.link,
    date: formatDate(item.date),
  };
}

export const channelFields = {
  id: idJson,
  name: Joi.string().example('Newsletter'),
  description: Joi.string().allow(''),
  color: Joi.string().allow('').example('#1A2B3C'),
  starred: Joi.boolean(),
};

export const channelJson = record(channelFields);

export const channelItemJson = record({
  type: Joi.string().valid(...CHANNEL_ITEM_TYPES),
  id: idJson,
  title: Joi.string().allow(''),
  preview: Joi.string().allow(''),
  link: urlJson,
  date: dateJson,
});
